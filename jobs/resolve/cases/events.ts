import { Type } from '@sinclair/typebox';
import { ACTION_STATUSES, CASE_PRIORITIES, CASE_STATUSES } from './schemas.js';
import { StringEnum } from '../../../shared/schemas/common.js';
import type { DomainEvent } from '../../domain.js';

const Changes = Type.Array(Type.String(), {
  description: 'The fields the change set (status, priority, metadata, assignee, ...)',
});
const Nullable = (s: ReturnType<typeof Type.String>) => Type.Union([s, Type.Null()]);

/** The outbox events of case workspaces (the resolve module declares them; OpenAPI shows them as webhooks). */
export const caseEvents: Record<string, DomainEvent> = {
  'case.updated': {
    description:
      'A case changed: its status, priority, title, description, metadata, assignee or watchers (POST ' +
      '/v1/cases/{caseId}/update, or an upsert by externalKey that changed it)',
    payload: Type.Object(
      {
        caseId: Type.String(),
        externalKey: Nullable(Type.String()),
        status: StringEnum(CASE_STATUSES),
        priority: StringEnum(CASE_PRIORITIES),
        from: Type.Optional(StringEnum(CASE_STATUSES, { description: 'The status before, when the status moved' })),
        changes: Changes,
      },
      { $id: 'CaseUpdatedPayload' },
    ),
  },
  'case.deadline.missed': {
    description:
      'An open deadline of a case passed its due time; a review (POST /v1/cases/{caseId}/deadlines/review, ' +
      "or the clock's every few minutes) marked it missed",
    payload: Type.Object(
      {
        caseId: Type.String(),
        deadlineId: Type.String(),
        title: Type.String(),
        dueAt: Type.String({ format: 'date-time' }),
        owner: Nullable(Type.String()),
      },
      { $id: 'CaseDeadlineMissedPayload' },
    ),
  },
  'case.action.updated': {
    description: 'An action item of a case changed: its status, title, owner, due date or refs',
    payload: Type.Object(
      {
        caseId: Type.String(),
        actionId: Type.String(),
        status: StringEnum(ACTION_STATUSES),
        from: Type.Optional(StringEnum(ACTION_STATUSES, { description: 'The status before, when the status moved' })),
        changes: Changes,
      },
      { $id: 'CaseActionUpdatedPayload' },
    ),
  },
};
