import { routeGroup } from '../../shared/http/route-group.js';
import { SecurityValidateRequest } from '../../shared/schemas/bridge.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('security', scopes);

/** Secret scanning and risky configuration; secret references checked without exposing values */
export const security = defineDomain({
  name: 'security',
  summary: 'Secret scanning and risky configuration; secret references checked without exposing values',
  pendingIssue: 15,
  scopes,
  vocabulary,
  routes: [
    r.post('/v1/security/secrets/check', 'Validate scoped secret references without exposing values'),
    r.post('/v1/security/validate', 'Scan files for leaked secrets and risky configuration', { body: SecurityValidateRequest, countsAsWorkflow: true, mcpTool: 'security.validate' }),
  ],
});
