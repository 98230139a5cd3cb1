import { PolicyEvaluate, SecurityValidateRequest } from '../../shared/schemas/bridge.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('security', { read: ['tools:use'], write: ['tools:use'] });

export const routes = [
  r.get('/v1/security/policy', 'Policy map: capabilities per domain, mandate requirements, preflight rules', { auth: 'public', scopes: [] }),
  r.post('/v1/security/policy/evaluate', 'Evaluate an action against policy', { body: PolicyEvaluate }),
  r.post('/v1/compliance/outreach/evaluate', 'Lawful basis, consent, suppression and auditability before outreach'),
  r.post('/v1/security/secrets/check', 'Validate scoped secret references without exposing values'),
  r.post('/v1/security/validate', 'Scan files for leaked secrets and risky configuration', { body: SecurityValidateRequest, domain: 'security', countsAsWorkflow: true, mcpTool: 'security.validate' }),
];
