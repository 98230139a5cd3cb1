import { defineRoute, Reply } from '../../shared/http/route-spec.js';
import { pathParams, routeGroup } from '../../shared/http/route-group.js';
import {
  ConnectorCreate,
  ConnectorMatchRequest,
  PolicyDecisionView,
  PolicyEvaluate,
  PolicyMapView,
  PreflightRequest,
  PreflightResult,
} from './connector-schemas.js';
import { Deleted } from '../../shared/schemas/common.js';
import { policyMap } from '../policy/index.js';
import { evaluatePolicy } from './policy-service.js';
import {
  fetchConnector,
  findConnectors,
  installReadyConnectors,
  matchConnectors,
  registerConnector,
  removeConnector,
  updateConnectorByClient,
} from './connectors-service.js';
import { preflightConnector } from './preflight.js';
import { readyConnectors } from './ready-connectors.js';
import {
  ConnectorMatchReply,
  ConnectorPage,
  ConnectorReply,
  ConnectorUpdate,
  ReadyConnectorList,
  SessionCreate,
  SessionListQuery,
  SessionPage,
  SessionReply,
  SessionRevoke,
  TemplateInstall,
  TemplateInstallReply,
} from './schemas.js';
import { createSession, fetchSession, findSessions, revokeSessionByClient } from './sessions-service.js';
import { connectorView, sessionView } from './views.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['bridge:read'], write: ['bridge:write'] };
export const r = routeGroup('bridge', scopes);
/** The security group's routes are tools: any token with `tools:use`. */
export const security = routeGroup('security', { read: ['tools:use'], write: ['tools:use'] });

/**
 * The registry half of bridge: connectors, ready-made templates, preflight, connection sessions, and the policy that
 * governs them.
 */
export const registryRoutes = [
  r.get(
    '/v1/bridge/connectors',
    'Connectors of the current client with capability flags, status and preflight readiness',
    {
      list: true,
      response: { 200: ConnectorPage },
      handler: async ({ query, principal }, deps) => {
        const { rows, nextCursor } = await findConnectors(deps, principal, query);
        return {
          ok: true,
          connectors: await Promise.all(rows.map((row) => connectorView(deps, principal, row))),
          nextCursor,
        };
      },
    },
  ),
  r.post(
    '/v1/bridge/connectors',
    'Register a connector (credentials as cred: references; env: on operator platform connectors only)',
    {
      body: ConnectorCreate,
      response: { 201: ConnectorReply },
      handler: async ({ body, principal }, deps) =>
        new Reply(201, {
          ok: true,
          connector: await connectorView(deps, principal, await registerConnector(deps, principal, body)),
        }),
    },
  ),
  r.get('/v1/bridge/connectors/ready', 'List ready-made connector templates', {
    response: { 200: ReadyConnectorList },
    handler: () => ({ ok: true, templates: readyConnectors() }),
  }),
  r.post(
    '/v1/bridge/connectors/ready/install',
    'Install templates into the registry (installing again changes nothing)',
    {
      body: TemplateInstall,
      response: { 200: TemplateInstallReply },
      handler: async ({ body, principal }, deps) => {
        const installed = await installReadyConnectors(deps, principal, body);
        return {
          ok: true,
          installed: await Promise.all(
            installed.map(async ({ row, ...i }) => ({ ...i, connector: await connectorView(deps, principal, row) })),
          ),
        };
      },
    },
  ),
  r.get('/v1/bridge/connectors/{connectorId}', 'Fetch a connector', {
    response: { 200: ConnectorReply },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      connector: await connectorView(deps, principal, await fetchConnector(deps, principal, params.connectorId)),
    }),
  }),
  r.post('/v1/bridge/connectors/match', 'Match by capability and credential scope, scored with reasons', {
    body: ConnectorMatchRequest,
    response: { 200: ConnectorMatchReply },
    handler: async ({ body, principal }, deps) => ({ ok: true, matches: await matchConnectors(deps, principal, body) }),
  }),
  r.post('/v1/bridge/connectors/{connectorId}/preflight', 'Preflight with policy, scope and secret checks', {
    body: PreflightRequest,
    response: { 200: PreflightResult },
    mcpTool: 'bridge.preflight',
    handler: ({ params, body, principal, signal }, deps) =>
      preflightConnector(deps, principal, params.connectorId, body, signal),
  }),
  r.post('/v1/bridge/connectors/{connectorId}/update', 'Update status, scopes, credential reference or endpoint', {
    body: ConnectorUpdate,
    response: { 200: ConnectorReply },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      connector: await connectorView(
        deps,
        principal,
        await updateConnectorByClient(deps, principal, params.connectorId, body),
      ),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/bridge/connectors/{connectorId}',
    tag: 'bridge',
    auth: 'bearer',
    scopes: scopes.write,
    params: pathParams('/v1/bridge/connectors/{connectorId}'),
    summary: 'Delete a connector and its connection sessions',
    response: { 200: Deleted },
    handler: async ({ params, principal }, deps) => {
      await removeConnector(deps, principal, (params as { connectorId: string }).connectorId);
      return { ok: true };
    },
  }),
  r.post('/v1/bridge/connection-sessions', 'Create a scoped, expiring connection session', {
    body: SessionCreate,
    response: { 201: SessionReply },
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, session: sessionView(await createSession(deps, principal, body)) }),
  }),
  r.get('/v1/bridge/connection-sessions', 'List connection sessions', {
    query: SessionListQuery,
    response: { 200: SessionPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findSessions(deps, principal, query);
      return { ok: true, sessions: rows.map(sessionView), nextCursor };
    },
  }),
  r.get('/v1/bridge/connection-sessions/{sessionId}', 'Fetch a connection session', {
    response: { 200: SessionReply },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      session: sessionView(await fetchSession(deps, principal, params.sessionId)),
    }),
  }),
  r.post('/v1/bridge/connection-sessions/{sessionId}/revoke', 'Revoke a connection session', {
    body: SessionRevoke,
    response: { 200: SessionReply },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      session: sessionView(await revokeSessionByClient(deps, principal, params.sessionId, body.reason)),
    }),
  }),
  security.get('/v1/security/policy', 'Policy map: capabilities per domain, mandate requirements, preflight rules', {
    auth: 'public',
    scopes: [],
    response: { 200: PolicyMapView },
    handler: () => ({ ok: true, ...policyMap() }),
  }),
  security.post(
    '/v1/security/policy/evaluate',
    'Evaluate an action against policy: allowed, and the rule that decided',
    {
      body: PolicyEvaluate,
      response: { 200: PolicyDecisionView },
      handler: ({ body, principal }, deps) => evaluatePolicy(deps, principal, body),
    },
  ),
];
