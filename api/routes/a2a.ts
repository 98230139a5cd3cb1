import { TaskState } from '@a2a-js/sdk';
import { ENVELOPE_KINDS, ENVELOPES, EnvelopeCreate, EnvelopeUpdate, EnvelopeView } from '../../jobs/envelopes/index.js';
import { RUN_STATUSES } from '../../jobs/orchestrator/run-state.js';
import { withoutIds } from '../../shared/validation.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply, type AnyRoute } from '../../shared/http/route-spec.js';
import { JsonRpcMessage } from '../transports/jsonrpc-schemas.js';
import { A2AContract, JsonRpcResponse, ServiceAgentCard } from '../contract/schemas.js';
import { A2A_PATH, A2A_VERSIONS, agentCardJson } from '../transports/a2a-card.js';
import { publicBase } from '../transports/public-base.js';
import { taskState } from '../transports/a2a-task.js';
import { a2aAnswer } from '../transports/a2a-rpc.js';

const r = routeGroup('a2a', { read: ['agents:read'], write: ['agents:write'] });

/** The envelope contract, read off the one status table and the schemas the routes validate with. */
function envelopeContract() {
  return {
    contract: 'awp:a2a-envelope#v1',
    statuses: ENVELOPES.statuses,
    terminal: ENVELOPES.terminal,
    transitions: Object.fromEntries(ENVELOPES.statuses.map((s) => [s, ENVELOPES.allowed(s)])),
    kinds: ENVELOPE_KINDS,
    schemas: {
      create: withoutIds(EnvelopeCreate),
      update: withoutIds(EnvelopeUpdate),
      envelope: withoutIds(EnvelopeView),
    },
    transport: {
      agentCard: '/.well-known/agent-card.json',
      jsonRpc: A2A_PATH,
      protocolVersions: A2A_VERSIONS,
      taskStates: Object.fromEntries(RUN_STATUSES.map((s) => [s, TaskState[taskState(s)]])),
    },
  };
}

/** The A2A transport reads the route table (each method is a route's call), so it is handed in as a function. */
export function a2aRoutes(table: () => AnyRoute[]): AnyRoute[] {
  return [
    r.get('/.well-known/agent-card.json', "The service's A2A agent card", {
      auth: 'public',
      scopes: [],
      description:
        'Skills (the domains that run and the templates over them), the JSON-RPC endpoint (A2A 1.0 and 0.3) ' +
        'and its bearer scheme. URLs start with PUBLIC_BASE_URL, else the scheme and host the client used. ' +
        '`A2A-Version: 1.0` gets the 1.0 card; none (or 0.3) the 0.3 card.',
      response: { 200: ServiceAgentCard },
      handler: async ({ headers, origin }, deps) =>
        new Reply(200, await agentCardJson(publicBase(deps.config, origin), headers['a2a-version']), {
          'Cache-Control': 'public, max-age=300',
          Vary: 'A2A-Version, Host',
        }),
    }),
    r.post(
      A2A_PATH,
      'A2A JSON-RPC: SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask (and their 0.3 names)',
      {
        description:
          'The A2A-Version header picks the protocol version (absent: 0.3). A task is a run: the same id as ' +
          '/v1/runs/{runId}, the same scopes, validation, workflow allowance and quota as the HTTP routes ' +
          'behind each method. Streaming methods answer text/event-stream.',
        body: JsonRpcMessage,
        streams: true,
        transport: 'a2a',
        scopes: [],
        response: { 200: JsonRpcResponse },
        handler: ({ body, params: _params, query: _query, ...call }, deps) => a2aAnswer(table, call, body, deps),
      },
    ),
    r.get('/v1/a2a/contract', 'A2A envelope contract', {
      description:
        'Envelope statuses and the moves between them, kinds, the schemas of create, update and the envelope ' +
        'itself, and how the A2A transport maps runs onto tasks.',
      response: { 200: A2AContract },
      handler: () => ({ ok: true, ...envelopeContract() }),
    }),
  ];
}
