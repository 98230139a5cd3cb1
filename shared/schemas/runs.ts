import { Type } from '@sinclair/typebox';

export const RunEventsQuery = Type.Object({ after: Type.Optional(Type.Integer({ minimum: 0, description: 'Resume after this event id (same as Last-Event-ID)' })) });

