import { Type } from '@sinclair/typebox';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('resolve', { read: ['tools:use'], write: ['tools:use'], domain: 'resolve' });

export const ScamTriageRequest = Type.Object(
  {
    claim: Type.String({ minLength: 1, maxLength: 20_000 }),
    documents: Type.Optional(Type.Array(Type.String({ maxLength: 100_000 }), { maxItems: 50 })),
    taskId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'ScamTriageRequest', additionalProperties: true },
);

export const routes = [
  r.post('/v1/resolve/scamTriage', 'Risk, evidence map, contradictions and missing evidence for a claim', { body: ScamTriageRequest, countsAsWorkflow: true, mcpTool: 'resolve.scamTriage' }),
];
