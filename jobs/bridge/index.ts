import { routeGroup, toolsGroup } from '../../shared/http/route-group.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { ConnectorCreate, PolicyEvaluate, PreflightRequest, PreflightResult } from '../../shared/schemas/bridge.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['bridge:read'], write: ['bridge:write'] };
const r = routeGroup('bridge', scopes);
const security = routeGroup('security', { read: ['tools:use'], write: ['tools:use'] });
const tools = toolsGroup;
const pending = (issue: number, routes: AnyRoute[]) => routes.map((route) => ({ ...route, pendingIssue: issue }));

/** Connectors, scoped credentials, provider actions and portals: how the service reaches the outside. */
export const bridge = defineDomain({
  name: 'bridge',
  summary: 'Connectors, scoped credentials, provider actions and portals',
  pendingIssue: 14,
  scopes,
  vocabulary,
  routes: [
    r.get('/v1/bridge/connectors', 'Connectors of the current client with capability flags, status and preflight readiness', { list: true }),
    r.post('/v1/bridge/connectors', 'Register a connector', { body: ConnectorCreate }),
    r.get('/v1/bridge/connectors/ready', 'List ready-made connector templates'),
    r.post('/v1/bridge/connectors/ready/install', 'Install templates into the registry'),
    r.get('/v1/bridge/connectors/{connectorId}', 'Fetch a connector'),
    r.post('/v1/bridge/connectors/match', 'Match by capability and credential scope'),
    r.post('/v1/bridge/connectors/{connectorId}/preflight', 'Preflight with policy, scope and secret checks', { body: PreflightRequest, response: { 200: PreflightResult }, mcpTool: 'bridge.preflight' }),
    r.post('/v1/bridge/connectors/{connectorId}/update', 'Update status or scope metadata'),
    r.post('/v1/bridge/connection-sessions', 'Create a scoped connection session'),
    r.get('/v1/bridge/connection-sessions', 'List connection sessions', { list: true }),
    r.get('/v1/bridge/connection-sessions/{sessionId}', 'Fetch a connection session'),
    r.post('/v1/bridge/connection-sessions/{sessionId}/revoke', 'Revoke a connection session'),
    security.get('/v1/security/policy', 'Policy map: capabilities per domain, mandate requirements, preflight rules', { auth: 'public', scopes: [] }),
    security.post('/v1/security/policy/evaluate', 'Evaluate an action against policy', { body: PolicyEvaluate }),
    ...pending(19, [
      r.post('/v1/bridge/actions', 'Queue a provider action and attach it to channel state'),
      r.get('/v1/bridge/actions', 'List bridge actions', { list: true }),
      r.get('/v1/bridge/actions/{actionId}', 'Fetch a bridge action'),
      r.post('/v1/bridge/actions/{actionId}/update', 'Update status, response, proof or error'),
      r.post('/v1/bridge/actions/{actionId}/run', 'Run via hosted adapter or dispatch to a client-hosted adapter'),
    ]),
    ...pending(20, [
      r.post('/v1/bridge/portal/sessions', 'Create a credential-reference-backed portal session'),
      r.get('/v1/bridge/portal/sessions', 'List portal sessions', { list: true }),
      r.get('/v1/bridge/portal/sessions/{portalSessionId}', 'Fetch a portal session'),
      r.post('/v1/bridge/portal/sessions/{portalSessionId}/preflight', 'Check credential, MFA and target-scope readiness'),
      r.post('/v1/bridge/portal/actions', 'Create a portal action'),
      r.get('/v1/bridge/portal/actions', 'List portal actions', { list: true }),
      r.get('/v1/bridge/portal/actions/{portalActionId}', 'Fetch a portal action'),
      r.post('/v1/bridge/portal/actions/{portalActionId}/run', 'Run through the portal browser tool'),
      r.get('/v1/bridge/portal/templates', 'List action templates'),
      r.get('/v1/bridge/portal/templates/{templateId}', 'Fetch an action template'),
      r.get('/v1/bridge/portal/playbooks', 'List recovery playbooks'),
      r.get('/v1/bridge/portal/playbooks/{playbookId}', 'Fetch a recovery playbook'),
      r.post('/v1/bridge/portal/playbooks/{playbookId}/instantiate', 'Instantiate a playbook into queued portal actions'),
      tools.post('/v1/tools/portalBrowser', 'Fail-closed authenticated portal action with proof-ready artefacts'),
      security.post('/v1/compliance/outreach/evaluate', 'Lawful basis, consent, suppression and auditability before outreach'),
    ]),
  ],
});
