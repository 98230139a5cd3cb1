import { ConnectorCreate, PreflightRequest, PreflightResult } from '../../shared/schemas/bridge.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('bridge', { read: ['bridge:read'], write: ['bridge:write'], domain: 'bridge' });

export const routes = [
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
  r.post('/v1/bridge/actions', 'Queue a provider action and attach it to channel state'),
  r.get('/v1/bridge/actions', 'List bridge actions', { list: true }),
  r.get('/v1/bridge/actions/{actionId}', 'Fetch a bridge action'),
  r.post('/v1/bridge/actions/{actionId}/update', 'Update status, response, proof or error'),
  r.post('/v1/bridge/actions/{actionId}/run', 'Run via hosted adapter or dispatch to a client-hosted adapter'),
];
