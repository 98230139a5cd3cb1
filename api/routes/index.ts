import { DOMAIN_ROUTES } from '../../jobs/domains.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { a2aRoutes } from './a2a.js';
import { routes as agents } from '../../jobs/agents/routes.js';
import { routes as audit } from '../../jobs/audit/index.js';
import { routes as approvals } from '../../jobs/approvals/index.js';
import { routes as members } from '../../jobs/members/index.js';
import { routes as channels } from '../../jobs/channels/routes.js';
import { routes as delivery } from '../../jobs/delivery/routes.js';
import { contractRoutes } from './contract.js';
import { routes as eventDeliveries } from '../../jobs/events/deliveries-routes.js';
import { routes as eventSubscriptions } from '../../jobs/events/subscriptions-routes.js';
import { routes as events } from '../../jobs/events/routes.js';
import { mcpRoutes } from './mcp.js';
import { routes as orchestrator } from '../../jobs/orchestrator/routes.js';
import { routes as profiles } from '../../jobs/accounts/profile-routes.js';
import { routes as proofCards } from '../../jobs/orchestrator/proof-card-routes.js';
import { routes as runs } from '../../jobs/orchestrator/runs-routes.js';
import { routes as sandbox } from '../../jobs/sandbox/routes.js';
import { routes as schedules } from '../../jobs/schedules/routes.js';
import { routes as session } from '../../jobs/accounts/session-routes.js';
import { routes as signals } from '../../jobs/signals/routes.js';
import { routes as tasks } from '../../jobs/tasks/routes.js';
import { routes as tokens } from '../../jobs/accounts/token-routes.js';
import { routes as toolsNlp } from '../../jobs/orchestrator/nlp-routes.js';
import { routes as workflows } from '../../jobs/workflows/routes.js';
import { routes as wellKnown } from './well-known.js';

/**
 * The route table: the service's own route groups, then every domain
 * module's routes. Koa routing, OpenAPI, /v1/protocol-map, /v1/schemas and
 * MCP tools are all derived from this list (order does not matter: literal
 * segments are registered before parameters).
 */
export const ALL_ROUTES: AnyRoute[] = [];
ALL_ROUTES.push(
  ...contractRoutes(() => ALL_ROUTES), ...profiles, ...session, ...tokens, ...a2aRoutes(() => ALL_ROUTES), ...agents, ...channels, ...mcpRoutes(() => ALL_ROUTES), ...toolsNlp, ...tasks, ...workflows, ...sandbox,
  ...orchestrator, ...delivery, ...runs, ...proofCards, ...events, ...eventSubscriptions, ...eventDeliveries, ...wellKnown, ...signals, ...schedules, ...audit, ...members,
  ...approvals,
  ...DOMAIN_ROUTES,
);
