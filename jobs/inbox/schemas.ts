import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Id, Nullable, Ok, StringEnum, Timestamp } from '../../shared/schemas/common.js';

/** What waits for a person: a run's choice, a run's approval, a proxy mission (with or without a run). */
export const ITEM_KINDS = ['choice', 'approval', 'mission'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
export const ItemKindName = StringEnum(ITEM_KINDS);
/** How notifications reach a member. */
export const CHANNELS = ['email', 'chat'] as const;
export type Channel = (typeof CHANNELS)[number];
/** What a member is told of: an item appeared, nears its expiry, expired unanswered. */
export const NOTICE_EVENTS = ['created', 'escalated', 'expired'] as const;
export type NoticeEvent = (typeof NOTICE_EVENTS)[number];
/** What the live stream says of an item. */
export const STREAM_EVENTS = ['ready', 'item.added', 'item.changed', 'item.removed'] as const;

const Member = (description: string) => Nullable(Type.String({ description }));

export const InboxItem = Type.Object(
  {
    itemId: Type.String({ description: 'A waitpoint id (wait_…) for a choice or approval, a mission id (prx_…)' }),
    kind: ItemKindName,
    domain: Type.String({ description: 'The domain that waits (proxy for a mission)' }),
    runId: Nullable(Type.String({ description: 'The waiting run; null for a mission made through the API' })),
    waitpointId: Nullable(Type.String()),
    proxyId: Nullable(Type.String()),
    gate: Nullable(
      StringEnum(['deploy', 'payment', 'autonomy', 'mandate', 'waitpoint'], { description: 'An approval’s gate' }),
    ),
    title: Type.String(),
    summary: Type.String(),
    createdAt: Timestamp,
    expiresAt: Nullable(Timestamp),
    escalatedAt: Nullable(Timestamp),
    submittedBy: Member('The member who submitted the run (who may not approve it); null when unknown'),
    assignee: Member('The member the item is assigned to'),
    assignedBy: Member('Who assigned it'),
    claimedBy: Member('The member working on it now; a claim lapses at claimExpiresAt'),
    claimExpiresAt: Nullable(Timestamp),
    link: Type.String({ description: "The item's page in the dashboard: /dashboard/#/inbox/<itemId>" }),
  },
  { $id: 'InboxItem' },
);
export type InboxItem = Static<typeof InboxItem>;

const Action = Type.Object({
  action: Nullable(Type.String({ description: 'The action the answer names; null when the answer has none' })),
  description: Type.String(),
  approves: Nullable(Type.Boolean({ description: 'For an approval: whether answering so approves' })),
});

const ProofFile = Type.Object({
  sha256: Type.String(),
  proofItem: Type.String(),
  name: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  href: Type.String({ description: 'GET it here (same account only)' }),
  createdAt: Timestamp,
});

export const InboxItemDetail = Type.Object(
  {
    ...InboxItem.properties,
    answerSchema: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'JSON Schema (2020-12) of POST /v1/inbox/{itemId}/answer for this item, built from the resume actions ' +
          'the waiting domain declares and their inputs (the offered choices, the required proof items)',
      },
    ),
    actions: Type.Array(Action, { description: 'The answers the waiting domain accepts' }),
    run: Nullable(
      Type.Object({
        runId: Type.String(),
        status: Type.String(),
        request: Type.String(),
        route: Type.Array(Type.String()),
        taskId: Nullable(Type.String()),
      }),
    ),
    choice: Nullable(
      Type.Object({
        question: Nullable(Type.String()),
        intent: Nullable(Type.String()),
        candidates: Type.Array(AnyObject, { description: 'The offered choices with their evidence, as offered' }),
      }),
    ),
    approval: Nullable(
      Type.Object({
        gate: Type.String(),
        question: Nullable(Type.String()),
        ifApproved: Type.Array(Type.String(), { description: 'What happens when it is approved, in words' }),
        plan: Type.Object({
          route: Type.Array(Type.String()),
          waitingStep: Type.Object({ domain: Type.String(), index: Type.Integer() }),
          remaining: Type.Array(Type.String(), { description: 'The steps that run once it is approved, in order' }),
        }),
        amount: Nullable(AnyObject),
        budget: Nullable(AnyObject),
        diff: Nullable(Type.String({ description: 'The diff or patch the step would apply, when it has one' })),
        details: AnyObject,
      }),
    ),
    mission: Nullable(
      Type.Object({
        proxyId: Type.String(),
        kind: Type.String(),
        reason: Type.String(),
        status: Type.String(),
        task: Type.String({ description: 'What the person is asked to do' }),
        context: AnyObject,
        voiceCall: Nullable(AnyObject),
        channelMsg: Nullable(AnyObject),
        proofReq: Type.Array(Type.String()),
        proofItems: Type.Array(
          Type.Object({ item: Type.String(), required: Type.Boolean(), provided: Type.Boolean() }),
        ),
        files: Type.Array(ProofFile),
      }),
    ),
  },
  { $id: 'InboxItemDetail' },
);

/** `30m`, `2h`, `1d`: at least this old. */
export const Age = Type.String({ pattern: '^[1-9][0-9]{0,5}[smhd]$', description: 'An age: 90s, 30m, 2h, 7d' });

export const InboxQuery = Type.Object({
  kind: Type.Optional(ItemKindName),
  domain: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  olderThan: Type.Optional(Age),
  assignee: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: '`me`, a member id (mem_…), or `none` (unassigned)' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 400, description: 'nextCursor of the previous page' })),
});
export type InboxQuery = Static<typeof InboxQuery>;

export const InboxPage = Ok({ items: Type.Array(InboxItem), nextCursor: Nullable(Type.String()) }, 'InboxPage');
export const InboxOne = Ok({ item: InboxItemDetail }, 'InboxOne');
export const InboxItemOne = Ok({ item: InboxItem }, 'InboxItemOne');

export const AssignBody = Type.Object(
  { memberId: Nullable(Id('The member to assign it to; null unassigns it')) },
  { $id: 'InboxAssign', additionalProperties: false },
);

/** The largest file a proof item takes, decoded. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** What a proof file may be; its first bytes must say the same. */
export const FILE_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'text/plain',
] as const;

export const AnswerBody = Type.Object(
  {
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    itemId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The chosen candidate' })),
    approved: Type.Optional(Type.Boolean()),
    data: Type.Optional(AnyObject),
  },
  {
    $id: 'InboxAnswer',
    additionalProperties: false,
    description: "Checked against the item's answerSchema (GET /v1/inbox/{itemId}); 400 names each field that is off",
  },
);
export type AnswerBody = Static<typeof AnswerBody>;

export const Answered = Ok(
  {
    itemId: Type.String(),
    kind: ItemKindName,
    runId: Nullable(Type.String()),
    runStatus: Nullable(Type.String({ description: 'The run’s status after the answer (queued: it resumed)' })),
    missionStatus: Nullable(Type.String()),
    files: Type.Array(ProofFile),
  },
  'InboxAnswered',
);

const KindChannels = Type.Object(
  { email: Type.Boolean(), chat: Type.Boolean() },
  { additionalProperties: false, description: 'Channels on (true) or off for this kind' },
);
export const NotificationChoices = Type.Object(
  { choice: KindChannels, approval: KindChannels, mission: KindChannels },
  { $id: 'InboxNotificationChoices', additionalProperties: false },
);
export type NotificationChoices = Static<typeof NotificationChoices>;
export const NotificationsView = Ok(
  {
    memberId: Type.String(),
    choices: NotificationChoices,
    events: Type.Array(StringEnum(NOTICE_EVENTS), { description: 'What is notified: each kind on each channel' }),
    updatedAt: Nullable(Timestamp),
  },
  'InboxNotifications',
);

/** One SSE event of GET /v1/inbox/events (its `event:` line names it; this is its `data:`). */
export const InboxStreamEvent = Type.Object(
  {
    items: Type.Optional(Type.Array(InboxItem, { description: '`ready`: the open items' })),
    itemId: Type.Optional(Type.String({ description: '`item.added`, `item.changed`, `item.removed`' })),
    item: Type.Optional(InboxItem),
  },
  {
    $id: 'InboxStreamEvent',
    description: `text/event-stream; events: ${STREAM_EVENTS.join(', ')}. Each frame's data is this object`,
  },
);

/** GET /v1/inbox/{itemId}/files/{sha256}: the bytes, under their own content type. */
export const InboxFileBytes = Type.String({
  $id: 'InboxFileBytes',
  format: 'binary',
  description: `The file as stored (${FILE_TYPES.join(', ')}), with X-Content-SHA256`,
});
