import { Type } from '@sinclair/typebox';
import { PageQuery } from './common.js';
import { ResumeAction } from './orchestrator.js';

export const RunListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(Type.String({ maxLength: 40 })),
    domain: Type.Optional(Type.String({ maxLength: 40 })),
    conversationId: Type.Optional(Type.String({ maxLength: 200 })),
    createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
    createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
  }),
], { $id: 'RunListQuery' });

export const RunEventsQuery = Type.Object({ after: Type.Optional(Type.Integer({ minimum: 0, description: 'Resume after this event id (same as Last-Event-ID)' })) });

export const RunResume = Type.Object(
  {
    itemId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    action: Type.Optional(ResumeAction),
    approved: Type.Optional(Type.Boolean()),
    data: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'RunResumeRequest' },
);
