import { routeGroup } from '../../shared/http/route-group.js';
import { SecretsCheckRequest, SecretsCheckResult, SecurityValidateRequest, SecurityValidateResult } from './schemas.js';
import { scanFiles } from './scan.js';
import { checkSecretRefs } from './secrets-check.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('security', scopes);

export const routes = [
  r.post('/v1/security/secrets/check', 'Validate scoped secret references without exposing values', {
    description:
      'Each reference (`refs`, and with `connectorId` every reference that connector holds) gets a status: ' +
      "`resolvable` (cred:NAME in the caller's vault; env:NAME set on this server, told to operators only), " +
      '`missing` (not there), `outOfBounds` (env: from a non-operator, a name outside SECRET_ENV_PREFIX, or ' +
      'another scheme), `literal` (a secret value where a reference belongs) or `malformed`. No value is ' +
      "returned; a reference is echoed only when it has a reference's shape.",
    body: SecretsCheckRequest,
    response: { 200: SecretsCheckResult },
    mcpTool: 'security.secretsCheck',
    handler: ({ body, principal }, deps) => checkSecretRefs(deps, principal, body),
  }),
  r.post('/v1/security/validate', 'Scan files for leaked secrets and risky configuration', {
    description:
      "secretlint's recommended preset plus a provider key table covering gitleaks' default rules (ruleId " +
      'awp/<gitleaks id>), Stripe keys, JSON Web Tokens and an entropy-checked generic rule; placeholders, ' +
      'examples, references and test fixtures named as such are counted in `suppressed`, not reported. ' +
      'Dockerfiles (root user, `latest`) and GitHub Actions workflows (untrusted event text in run:, ' +
      'pull_request_target checking out the head) are checked too. Evidence is a prefix and a length, never the ' +
      'value. `verdict`: `block` for a live-looking secret or an exploitable workflow, `warn` for the rest.',
    body: SecurityValidateRequest,
    response: { 200: SecurityValidateResult },
    countsAsWorkflow: true,
    mcpTool: 'security.validate',
    handler: ({ body, signal }, deps) => scanFiles(body.files, deps.log, signal),
  }),
];
