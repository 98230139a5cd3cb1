import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Id, PageQuery, StringEnum, Text, Timestamp } from '../../../shared/schemas/common.js';

/**
 * Case workspaces: the vocabularies and the request bodies. The status lists
 * are in the order of their transition tables (jobs/resolve/cases/machines.ts,
 * which a unit test holds to these lists).
 */
export const CASE_STATUSES = ['open', 'investigating', 'awaitingParty', 'resolved', 'closed'] as const;
export const CASE_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const STAKEHOLDER_ROLES = [
  'claimant',
  'respondent',
  'vendor',
  'customer',
  'counterparty',
  'witness',
  'advisor',
  'regulator',
  'internal',
  'other',
] as const;
export const DEADLINE_STATUSES = ['open', 'met', 'missed', 'waived'] as const;
/** Deadline moves a client makes; `missed` is the review's (by route or by the clock). */
export const DEADLINE_CLIENT_MOVES = ['met', 'waived'] as const;
export const ACTION_STATUSES = ['open', 'inProgress', 'blocked', 'done', 'canceled'] as const;
/**
 * What an action item or a timeline entry may point at. Receipts are recorded as given (the pay domain is not built
 * yet).
 */
export const CASE_REF_KINDS = ['run', 'task', 'mission', 'receipt', 'proofCard'] as const;
/** Kinds of the entries a client appends (POST /v1/cases/{caseId}/events). */
export const CLIENT_ENTRY_KINDS = [
  'note',
  'call',
  'email',
  'meeting',
  'message',
  'document',
  'decision',
  'other',
] as const;
/** Kinds of the entries the service writes, and of those it derives from linked runs and missions. */
export const SERVICE_ENTRY_KINDS = [
  'case.created',
  'case.updated',
  'stakeholder.added',
  'deadline.added',
  'deadline.updated',
  'deadline.missed',
  'action.added',
  'action.updated',
  'run.linked',
  'run.proofCard',
  'mission.linked',
] as const;

export type CaseStatus = (typeof CASE_STATUSES)[number];
export type DeadlineStatus = (typeof DEADLINE_STATUSES)[number];
export type ActionStatus = (typeof ACTION_STATUSES)[number];
export type EntryKind = (typeof CLIENT_ENTRY_KINDS)[number] | (typeof SERVICE_ENTRY_KINDS)[number];

export const CaseStatus = StringEnum(CASE_STATUSES, {
  description:
    'open → investigating ⇄ awaitingParty → resolved | closed; resolved reopens (open, investigating) or ' +
    'closes; closed is final',
});
export const CasePriority = StringEnum(CASE_PRIORITIES);
export const DeadlineStatus = StringEnum(DEADLINE_STATUSES, {
  description: 'open → met | missed | waived; missed → met | waived (late, or let go)',
});
export const ActionStatus = StringEnum(ACTION_STATUSES, {
  description: 'open ⇄ inProgress ⇄ blocked → done | canceled',
});
export const EntryKind = StringEnum([...CLIENT_ENTRY_KINDS, ...SERVICE_ENTRY_KINDS]);

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);
const Watchers = Type.Array(Text(200), {
  maxItems: 50,
  uniqueItems: true,
  description: 'Who follows the case (names, emails or token ids; yours to choose)',
});

export const CaseRef = Type.Object(
  { kind: StringEnum(CASE_REF_KINDS), id: Id() },
  {
    $id: 'CaseRef',
    description: 'A record of yours: a run, task or mission must exist in your account (404 otherwise)',
  },
);
export type CaseRef = Static<typeof CaseRef>;
const Refs = Type.Array(CaseRef, { maxItems: 50 });

export const CaseUpsert = Type.Object(
  {
    externalKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Your key for the case: a second POST with it answers the same case (200) instead of a new one',
      }),
    ),
    title: Text(500),
    description: Type.Optional(Text(10_000)),
    priority: Type.Optional(CasePriority),
    taskId: Type.Optional(Id('A task of yours the case is about')),
    runId: Type.Optional(Id('A run of yours the case is about; it is linked on the timeline')),
    metadata: Type.Optional(AnyObject),
    assignee: Type.Optional(Text(200)),
    watchers: Type.Optional(Watchers),
  },
  { $id: 'CaseUpsert', additionalProperties: true },
);
export type CaseUpsert = Static<typeof CaseUpsert>;

export const CaseUpdate = Type.Object(
  {
    status: Type.Optional(CaseStatus),
    priority: Type.Optional(CasePriority),
    title: Type.Optional(Text(500)),
    description: Type.Optional(Text(10_000)),
    metadata: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: "Merged into the case's metadata, key by key; a key set to null is removed",
        },
      ),
    ),
    assignee: Type.Optional(Nullable(Text(200))),
    watchers: Type.Optional(Watchers),
    note: Type.Optional(Text(2000)),
  },
  { $id: 'CaseUpdate', additionalProperties: true },
);
export type CaseUpdate = Static<typeof CaseUpdate>;

export const CaseListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(CaseStatus),
    priority: Type.Optional(CasePriority),
    taskId: Type.Optional(Id()),
    runId: Type.Optional(Id()),
    stakeholderEmail: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Words in the title, description or external key (case-insensitive)',
      }),
    ),
  }),
]);

export const StakeholderCreate = Type.Object(
  {
    name: Text(300),
    role: StringEnum(STAKEHOLDER_ROLES),
    contact: Type.Object(
      { email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })), phone: Type.Optional(Text(50)) },
      {
        additionalProperties: true,
        minProperties: 1,
        description: 'An email, a phone (international form, +...) or both; a second stakeholder with either is 409',
      },
    ),
    organisation: Type.Optional(Text(300)),
  },
  { $id: 'CaseStakeholderCreate', additionalProperties: true },
);
export type StakeholderCreate = Static<typeof StakeholderCreate>;

export const DeadlineCreate = Type.Object(
  { title: Text(500), dueAt: Timestamp, owner: Type.Optional(Text(200)) },
  { $id: 'CaseDeadlineCreate', additionalProperties: true },
);

export const DeadlineUpdate = Type.Object(
  {
    status: Type.Optional(
      StringEnum(DEADLINE_CLIENT_MOVES, {
        description: 'met: done in time (or late, after missed); waived: no longer needed',
      }),
    ),
    title: Type.Optional(Text(500)),
    dueAt: Type.Optional(Timestamp),
    owner: Type.Optional(Nullable(Text(200))),
    note: Type.Optional(Text(2000)),
  },
  { $id: 'CaseDeadlineUpdate', additionalProperties: true },
);
export type DeadlineUpdate = Static<typeof DeadlineUpdate>;

export const ActionCreate = Type.Object(
  {
    title: Text(500),
    description: Type.Optional(Text(10_000)),
    owner: Type.Optional(Text(200)),
    dueAt: Type.Optional(Timestamp),
    refs: Type.Optional(Refs),
  },
  { $id: 'CaseActionCreate', additionalProperties: true },
);
export type ActionCreate = Static<typeof ActionCreate>;

export const ActionUpdate = Type.Object(
  {
    status: Type.Optional(ActionStatus),
    title: Type.Optional(Text(500)),
    owner: Type.Optional(Nullable(Text(200))),
    dueAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
    refs: Type.Optional(Type.Array(CaseRef, { maxItems: 50, description: "Replaces the action's refs" })),
    note: Type.Optional(Text(2000)),
  },
  { $id: 'CaseActionUpdate', additionalProperties: true },
);
export type ActionUpdate = Static<typeof ActionUpdate>;

export const ActionListQuery = Type.Composite([PageQuery, Type.Object({ status: Type.Optional(ActionStatus) })]);

export const TimelineAppend = Type.Object(
  {
    kind: StringEnum(CLIENT_ENTRY_KINDS),
    text: Text(10_000),
    refs: Type.Optional(Refs),
    at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When it happened (default: now); the timeline is ordered by it',
      }),
    ),
  },
  { $id: 'CaseTimelineAppend', additionalProperties: true },
);
export type TimelineAppend = Static<typeof TimelineAppend>;
