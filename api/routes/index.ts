import { DOMAIN_ROUTES } from '../../jobs/domains.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { a2aRoutes } from './a2a.js';
import { routes as agents } from './agents.js';
import { routes as audit } from '../../jobs/audit/index.js';
import { routes as approvals } from '../../jobs/approvals/index.js';
import { routes as members } from '../../jobs/members/index.js';
import { routes as channels } from './channels.js';
import { routes as delivery } from './delivery.js';
import { contractRoutes } from './contract.js';
import { routes as eventDeliveries } from './event-deliveries.js';
import { routes as eventSubscriptions } from './event-subscriptions.js';
import { routes as events } from './events.js';
import { mcpRoutes } from './mcp.js';
import { routes as orchestrator } from './orchestrator.js';
import { routes as profiles } from './profiles.js';
import { routes as proofCards } from './proof-cards.js';
import { routes as runs } from './runs.js';
import { routes as sandbox } from './sandbox.js';
import { routes as schedules } from './schedules.js';
import { routes as session } from './session.js';
import { routes as signals } from './signals.js';
import { routes as tasks } from './tasks.js';
import { routes as tokens } from './tokens.js';
import { routes as toolsNlp } from './tools-nlp.js';
import { routes as workflows } from './workflows.js';
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
