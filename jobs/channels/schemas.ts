import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ConnectorId } from '../bridge/index.js';
import { AnyObject, Id, Ok, OptionalRef, Page, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { CALLBACK_KINDS, CALLBACK_STATUSES, CHANNELS, DIRECTIONS, SIGNATURE_SCHEMES } from './logic.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const Channel = StringEnum(CHANNELS);
export const Direction = StringEnum(DIRECTIONS);
export const TIMELINE_KINDS = ['touchpoint', 'action', 'callback'] as const;

const Participant = Type.Object(
  {
    role: Type.Optional(Type.String({ maxLength: 50 })),
    name: Type.Optional(Type.String({ maxLength: 300 })),
    address: Type.Optional(Type.String({ maxLength: 300, description: 'Phone, email or handle' })),
  },
  { additionalProperties: true },
);

export const ThreadCreate = Type.Object(
  {
    externalKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'Your key for the conversation: the same key upserts the same thread (same threadId)',
      }),
    ),
    channel: Channel,
    subject: Type.Optional(Type.String({ maxLength: 500 })),
    participants: Type.Optional(Type.Array(Participant, { maxItems: 50 })),
    caseId: OptionalRef('Your case reference'),
    conversationId: OptionalRef('A conversation of the orchestrator'),
    missionId: OptionalRef('A proxy mission (prx_...)'),
    providerId: OptionalRef('A provider (prov_... of the provider book, or yours)'),
  },
  { $id: 'ChannelThreadCreate', additionalProperties: true },
);
export type ThreadCreate = Static<typeof ThreadCreate>;

export const ThreadView = Type.Object(
  {
    threadId: Type.String(),
    externalKey: Nullable(Type.String()),
    channel: Channel,
    subject: Nullable(Type.String()),
    participants: Type.Array(AnyObject),
    refs: Type.Object({
      caseId: Nullable(Type.String()),
      conversationId: Nullable(Type.String()),
      missionId: Nullable(Type.String()),
      providerId: Nullable(Type.String()),
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ChannelThread' },
);
export const ThreadReply = Ok(
  { thread: ThreadView, created: Type.Boolean({ description: 'false: the externalKey named a thread already there' }) },
  'ChannelThreadReply',
);
export const ThreadOne = Ok({ thread: ThreadView }, 'ChannelThreadOne');
export const ThreadPage = Page('threads', ThreadView, 'ChannelThreadPage');
export const ThreadListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    channel: Type.Optional(Channel),
    caseId: Type.Optional(Id()),
    conversationId: Type.Optional(Id()),
    missionId: Type.Optional(Id()),
    providerId: Type.Optional(Id()),
  }),
]);

export const TimelineEntry = Type.Object({
  at: Timestamp,
  kind: StringEnum(TIMELINE_KINDS),
  ref: Type.String({ description: 'touchpointId, actionId or callbackId' }),
  status: Nullable(Type.String()),
  detail: Nullable(Type.String({ description: 'direction, capability or callback kind' })),
});
export const TimelineQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the page before' })),
});
export const TimelineReply = Ok(
  {
    threadId: Type.String(),
    entries: Type.Array(TimelineEntry, { description: 'Ascending at' }),
    nextCursor: Nullable(Type.String()),
  },
  'ChannelTimeline',
);

export const TouchpointCreate = Type.Object(
  {
    threadId: Id('The thread (thr_...)'),
    direction: Direction,
    status: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Yours (received, sent, read, ...); default recorded' }),
    ),
    body: Type.Optional(Type.String({ maxLength: 20_000 })),
    data: Type.Optional(AnyObject),
    at: Type.Optional(Type.String({ format: 'date-time', description: 'When it happened; default now' })),
    caseId: OptionalRef("Default: the thread's"),
    conversationId: OptionalRef("Default: the thread's"),
    providerId: OptionalRef("Default: the thread's"),
  },
  { $id: 'ChannelTouchpointCreate', additionalProperties: true },
);
export type TouchpointCreate = Static<typeof TouchpointCreate>;

export const TouchpointView = Type.Object(
  {
    touchpointId: Type.String(),
    threadId: Type.String(),
    direction: Direction,
    status: Type.String(),
    body: Nullable(Type.String()),
    data: AnyObject,
    refs: Type.Object({
      caseId: Nullable(Type.String()),
      conversationId: Nullable(Type.String()),
      providerId: Nullable(Type.String()),
    }),
    at: Timestamp,
    createdAt: Timestamp,
  },
  { $id: 'ChannelTouchpoint' },
);
export const TouchpointReply = Ok({ touchpoint: TouchpointView }, 'ChannelTouchpointReply');
export const TouchpointPage = Page('touchpoints', TouchpointView, 'ChannelTouchpointPage');
export const TouchpointQuery = Type.Composite([
  PageQuery,
  Type.Object({
    threadId: Type.Optional(Id()),
    caseId: Type.Optional(Id()),
    conversationId: Type.Optional(Id()),
    providerId: Type.Optional(Id()),
    status: Type.Optional(Type.String({ maxLength: 50 })),
  }),
]);

export const CallbackQuery = Type.Object({ connectorId: ConnectorId }, { additionalProperties: false });
/** A provider callback's body: the provider's JSON as it sent it (normalised by the connector's mapping). */
export const ProviderCallback = Type.Object(
  {},
  { $id: 'ProviderCallback', additionalProperties: true, description: "The provider's JSON, as it sent it" },
);
/** A provider's callback as it sends it: form fields (Twilio, Slack) or JSON, read by the connector kind's adapter. */
export const ProviderCallbackBody = Type.Object(
  {},
  {
    $id: 'ProviderCallbackBody',
    additionalProperties: true,
    description: "The provider's form fields or JSON, as it sent them (its signature covers the raw body)",
  },
);

export const CallbackListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    connectorId: Type.Optional(ConnectorId),
    kind: Type.Optional(StringEnum(CALLBACK_KINDS)),
    threadId: Type.Optional(Id()),
  }),
]);

export const CallbackView = Type.Object(
  {
    callbackId: Type.String(),
    connectorId: Type.String(),
    externalId: Type.String({ description: "webhook-id, the body's id, or the body's hash" }),
    kind: StringEnum(CALLBACK_KINDS),
    status: Nullable(StringEnum(CALLBACK_STATUSES)),
    signature: StringEnum(SIGNATURE_SCHEMES),
    refs: Type.Object({}, { additionalProperties: Type.String() }),
    threadId: Nullable(Type.String()),
    payload: Type.Unknown(),
    reconciliation: Nullable(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'What it changed: the action or mission it moved, or why it could not',
        },
      ),
    ),
    reconciledAt: Nullable(Timestamp),
    receivedAt: Timestamp,
  },
  { $id: 'ChannelCallback' },
);
export const CallbackReply = Ok(
  {
    callback: CallbackView,
    duplicate: Type.Boolean({
      description: 'true: this connector sent this callback before; it was not reconciled again',
    }),
  },
  'ChannelCallbackReply',
);
export const ProviderCallbackReply = Ok(
  {
    callback: CallbackView,
    duplicate: Type.Boolean({ description: 'true: the provider sent this callback before; nothing changed' }),
  },
  'ChannelProviderCallbackReply',
);
export const CallbackPage = Page('callbacks', CallbackView, 'ChannelCallbackPage');
