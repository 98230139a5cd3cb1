import { routeGroup } from '../../shared/http/route-group.js';
import { ApprovalPolicyReply, ApprovalPolicyUpdate } from './schemas.js';
import { readPolicy, updatePolicy } from './service.js';

const r = routeGroup('approvals', { read: ['runs:read'], write: ['members:manage'] });

export const routes = [
  r.get('/v1/policies/approvals', "The account's approval policy: gate kinds a run's submitter may approve", {
    response: { 200: ApprovalPolicyReply },
    mcpTool: 'approvals.policy',
    handler: ({ principal }, deps) => readPolicy(deps, principal),
  }),
  r.post('/v1/policies/approvals', "Set which gate kinds a run's submitter may approve (owner or admin)", {
    description:
      'By default nobody approves their own run: the member who submitted it gets 409 selfApproval at every ' +
      'gate. `selfApproval` lists the kinds (deploy, payment, autonomy, mandate, waitpoint) the submitter ' +
      'may approve. Owner or admin members only (403 otherwise); recorded in the audit log as ' +
      '`policy.approvals.updated`.',
    body: ApprovalPolicyUpdate,
    response: { 200: ApprovalPolicyReply },
    handler: ({ principal, body }, deps) => updatePolicy(deps, principal, body),
  }),
];
