import type { Static } from '@sinclair/typebox';
import { getTask } from '../tasks/index.js';
import type { Deps } from '../../shared/deps.js';
import { notFound } from '../../shared/errors.js';
import { auditPolicy } from './policy-audit.js';
import type { PolicyAuditRequest } from './policy-schemas.js';

/** POST /v1/resolve/policyAudit: the resolve step's policy check on the caller's rules; a `taskId` must be theirs. */
export async function policyAuditForClient(deps: Deps, accountId: string, body: Static<typeof PolicyAuditRequest>) {
  if (body.taskId && !(await getTask(deps.db, accountId, body.taskId))) throw notFound(`Task ${body.taskId}`);
  return {
    ok: true as const,
    taskId: body.taskId ?? null,
    policy: auditPolicy(body.rules, body.documents ?? [], body.vendorName),
  };
}
