import { Type } from '@sinclair/typebox';
import { routeGroup, toolsGroup } from '../../shared/http/route-group.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('resolve', scopes);
const tools = toolsGroup;

export const ScamTriageRequest = Type.Object(
  {
    claim: Type.String({ minLength: 1, maxLength: 20_000 }),
    documents: Type.Optional(Type.Array(Type.String({ maxLength: 100_000 }), { maxItems: 50 })),
    taskId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'ScamTriageRequest', additionalProperties: true },
);

export const routes = [
  r.post('/v1/resolve/scamTriage', 'Risk, evidence map, contradictions and missing evidence for a claim', { body: ScamTriageRequest, countsAsWorkflow: true, mcpTool: 'resolve.scamTriage', pendingIssue: 17 }),
  tools.post('/v1/tools/chainTrace', 'Trace blockchain transactions, prepare a recovery assessment', { pendingIssue: 17 }),
];
