import { Type } from '@sinclair/typebox';
import { BudgetUsd } from '../../shared/schemas/orchestrator.js';
import { routeGroup } from './group.js';

const r = routeGroup('hunt', { read: ['tools:use'], write: ['tools:use'], domain: 'hunt' });

export const HuntSearchRequest = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 1000 }),
    sources: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })),
    budget: Type.Optional(BudgetUsd),
    location: Type.Optional(Type.String({ maxLength: 300 })),
    taskId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'HuntSearchRequest', additionalProperties: true },
);

export const routes = [
  r.post('/v1/hunt/search', 'Source-bound discovery of candidates', { body: HuntSearchRequest, countsAsWorkflow: true, mcpTool: 'hunt.search' }),
];
