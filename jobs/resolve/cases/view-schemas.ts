import { Type } from '@sinclair/typebox';
import {
  ActionStatus,
  CasePriority,
  CaseRef,
  CaseStatus,
  DeadlineStatus,
  EntryKind,
  STAKEHOLDER_ROLES,
} from './schemas.js';
import { AnyObject, Ok, StringEnum, Timestamp } from '../../../shared/schemas/common.js';

/** What the case routes answer: a case, its parts and its timeline entries. */

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

export const StakeholderView = Type.Object(
  {
    stakeholderId: Type.String(),
    name: Type.String(),
    role: StringEnum(STAKEHOLDER_ROLES),
    contact: Type.Object({ email: Nullable(Type.String()), phone: Nullable(Type.String({ description: 'E.164' })) }),
    organisation: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { $id: 'CaseStakeholder' },
);

export const DeadlineView = Type.Object(
  {
    deadlineId: Type.String(),
    title: Type.String(),
    dueAt: Timestamp,
    owner: Nullable(Type.String()),
    status: DeadlineStatus,
    allowedTransitions: Type.Array(DeadlineStatus),
    settledAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'CaseDeadline' },
);

export const ActionView = Type.Object(
  {
    actionId: Type.String(),
    caseId: Type.String(),
    title: Type.String(),
    description: Nullable(Type.String()),
    status: ActionStatus,
    allowedTransitions: Type.Array(ActionStatus),
    owner: Nullable(Type.String()),
    dueAt: Nullable(Timestamp),
    refs: Type.Array(CaseRef),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'CaseAction' },
);

export const CaseView = Type.Object(
  {
    caseId: Type.String(),
    externalKey: Nullable(Type.String()),
    title: Type.String(),
    description: Nullable(Type.String()),
    status: CaseStatus,
    allowedTransitions: Type.Array(CaseStatus),
    priority: CasePriority,
    taskId: Nullable(Type.String()),
    runId: Nullable(Type.String()),
    metadata: AnyObject,
    assignee: Nullable(Type.String()),
    watchers: Type.Array(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Case' },
);

/** A case with its parts, as GET /v1/cases/{caseId} and the writes on it answer. */
export const CaseDetail = Type.Composite(
  [
    CaseView,
    Type.Object({
      stakeholders: Type.Array(StakeholderView),
      deadlines: Type.Array(DeadlineView),
      actions: Type.Array(ActionView, { description: 'The action items not done or canceled' }),
    }),
  ],
  { $id: 'CaseDetail' },
);

export const TimelineEntryView = Type.Object(
  {
    entryId: Type.String({ description: 'The entry (tle_...), or the proof card or mission it shows' }),
    at: Timestamp,
    kind: EntryKind,
    actor: Type.String({ description: 'token:<tokenId>, clock, run:<runId> or proxy' }),
    text: Type.String(),
    refs: Type.Array(CaseRef),
    data: AnyObject,
  },
  { $id: 'CaseTimelineEntry' },
);

export const CaseOne = Ok({ created: Type.Optional(Type.Boolean()), case: CaseDetail }, 'CaseOne');
export const CaseList = Ok({ cases: Type.Array(CaseView), nextCursor: Nullable(Type.String()) }, 'CaseList');
export const StakeholderOne = Ok({ caseId: Type.String(), stakeholder: StakeholderView }, 'CaseStakeholderOne');
export const DeadlineOne = Ok({ caseId: Type.String(), deadline: DeadlineView }, 'CaseDeadlineOne');
export const DeadlineReview = Ok(
  {
    caseId: Type.String(),
    missed: Type.Array(DeadlineView, { description: 'The deadlines this review marked missed' }),
    deadlines: Type.Array(DeadlineView),
  },
  'CaseDeadlineReview',
);
export const ActionOne = Ok({ caseId: Type.String(), action: ActionView }, 'CaseActionOne');
export const ActionList = Ok(
  { caseId: Type.String(), actions: Type.Array(ActionView), nextCursor: Nullable(Type.String()) },
  'CaseActionList',
);
export const EntryOne = Ok({ caseId: Type.String(), entry: TimelineEntryView }, 'CaseTimelineEntryOne');
export const Timeline = Ok(
  { caseId: Type.String(), entries: Type.Array(TimelineEntryView), nextCursor: Nullable(Type.String()) },
  'CaseTimeline',
);
