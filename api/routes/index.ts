import type { AnyRoute } from './route-spec.js';
import { routes as contract } from './contract.js';
import { routes as profiles } from './profiles.js';
import { routes as tokens } from './tokens.js';
import { routes as a2a } from './a2a.js';
import { routes as agents } from './agents.js';
import { routes as bridge } from './bridge.js';
import { routes as bridgePortal } from './bridge-portal.js';
import { routes as channels } from './channels.js';
import { routes as proxy } from './proxy.js';
import { routes as pay } from './pay.js';
import { routes as cases } from './cases.js';
import { routes as security } from './security.js';
import { routes as developerDelivery } from './developer-delivery.js';
import { routes as mcp } from './mcp.js';
import { routes as resolve } from './resolve.js';
import { routes as audit } from './audit.js';
import { routes as tools } from './tools.js';
import { routes as hunt } from './hunt.js';
import { routes as toolsNlp } from './tools-nlp.js';
import { routes as tasks } from './tasks.js';
import { routes as workflows } from './workflows.js';
import { routes as sandbox } from './sandbox.js';
import { routes as orchestrator } from './orchestrator.js';
import { routes as runs } from './runs.js';
import { routes as proofCards } from './proof-cards.js';
import { routes as events } from './events.js';
import { routes as eventSubscriptions } from './event-subscriptions.js';
import { routes as eventDeliveries } from './event-deliveries.js';
import { routes as wellKnown } from './well-known.js';

/**
 * The route table: every route of the service, declared once in its group
 * file. Koa routing, OpenAPI, /v1/protocol-map, /v1/schemas and MCP tools
 * are all derived from this list.
 */
export const ALL_ROUTES: AnyRoute[] = [
  ...contract, ...profiles, ...tokens,
  ...a2a, ...agents, ...bridge, ...bridgePortal, ...channels, ...proxy, ...pay, ...cases, ...security, ...developerDelivery, ...mcp, ...resolve, ...audit, ...tools, ...hunt, ...toolsNlp, ...tasks, ...workflows, ...sandbox, ...orchestrator, ...runs, ...proofCards, ...events, ...eventSubscriptions, ...eventDeliveries, ...wellKnown,
];
