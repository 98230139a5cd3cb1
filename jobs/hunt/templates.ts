import { Type } from '@sinclair/typebox';
import { Budget } from '../../shared/schemas/orchestrator.js';
import { metadataOf, textOr, type WorkflowTemplate } from '../workflows/index.js';

export const templates: WorkflowTemplate[] = [
  {
    templateId: 'findBestFit',
    domains: ['hunt', 'resolve'],
    description: 'Find candidates in the catalog within a budget, then audit them for contradictions and hidden fees',
    input: Type.Object(
      {
        request: Type.String({ minLength: 1, maxLength: 4000 }),
        budget: Type.Optional(Budget),
      },
      { $id: 'FindBestFitInput', additionalProperties: true },
    ),
    toRequest: (i) => ({
      request: textOr(i.request, 'find the best fit'),
      domainRoute: ['hunt', 'resolve'],
      metadata: metadataOf(i),
      ...(i.budget ? { budget: i.budget } : {}),
    }),
  },
];
