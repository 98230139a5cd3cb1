import { Type } from '@sinclair/typebox';
import { Nullable, AnyObject, Ok, Page, PageQuery, StringEnum, Timestamp } from './common.js';

/** push: the service POSTs signed webhooks; pull: the client's workers claim attempts through /v1/event-deliveries. */
export const SUBSCRIPTION_MODES = ['push', 'pull'] as const;
export type SubscriptionMode = (typeof SUBSCRIPTION_MODES)[number];
/** `disabled` is set by the service only (410 Gone, or 5 days failing); clients move between the other two. */
export const SUBSCRIPTION_STATUSES = ['active', 'paused', 'disabled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
const CLIENT_SUBSCRIPTION_STATUSES = ['active', 'paused'] as const satisfies readonly SubscriptionStatus[];
/** States of one delivery attempt in the ledger. */
export const DELIVERY_STATUSES = ['queued', 'claimed', 'completed', 'failed', 'canceled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * Who wrote an event: the service itself, or a client through POST /v1/events. Delivered in every webhook body and
 * event view.
 */
export const EVENT_SOURCES = ['service', 'client'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

export const EventType = Type.String({
  pattern: '^[a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)+$',
  maxLength: 100,
  description: 'dotted name, e.g. task.completed',
});
/** An event type, a prefix wildcard (`task.*`) or `*`, as subscriptions and the events stream take them. */
const PATTERN = '(\\*|[a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)*(\\.\\*)?)';
const EventPattern = Type.String({
  pattern: `^${PATTERN}$`,
  maxLength: 100,
  description: 'an event type, a prefix wildcard like task.*, or *',
});

export const EventCreate = Type.Object(
  { type: EventType, payload: AnyObject, subject: Type.Optional(Type.String({ maxLength: 200 })) },
  { $id: 'EventCreate' },
);
export const EventListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    type: Type.Optional(Type.String({ maxLength: 100 })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    until: Type.Optional(Type.String({ format: 'date-time' })),
    acknowledged: Type.Optional(Type.Boolean()),
  }),
]);

/** GET /v1/events/stream: which event types to follow. */
export const EventStreamQuery = Type.Object({
  types: Type.Optional(
    Type.String({
      pattern: `^${PATTERN}(,${PATTERN})*$`,
      maxLength: 500,
      description: 'Comma-separated event types or prefix wildcards (`case.*,pay.*`); all (`*`) when omitted',
    }),
  ),
});

/** One frame of GET /v1/events/stream. */
export const EventStreamEvent = Type.Object(
  {
    at: Type.Optional(Type.String({ format: 'date-time', description: '`ready`: when the stream started' })),
    eventId: Type.Optional(
      Type.String({ description: '`event`: the event (GET /v1/events/{eventId} has its payload)' }),
    ),
    type: Type.Optional(Type.String()),
    subject: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  {
    $id: 'EventStreamEvent',
    description: 'text/event-stream; events: ready, event. Each frame’s data is this object',
  },
);

export const SubscriptionCreate = Type.Object(
  {
    endpoint: Type.String({ minLength: 8, maxLength: 2000, description: 'HTTPS URL' }),
    events: Type.Array(EventPattern, { minItems: 1, maxItems: 50, uniqueItems: true }),
    secret: Type.Optional(
      Type.String({
        pattern: '^whsec_[A-Za-z0-9+/]{16,}={0,2}$',
        description: 'whsec_ + base64 key; generated when omitted',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    mode: StringEnum(SUBSCRIPTION_MODES, {
      default: 'push',
      description:
        'push: the service POSTs signed webhooks; pull: your workers claim attempts through /v1/event-deliveries',
    }),
  },
  { $id: 'SubscriptionCreate' },
);
export const SubscriptionUpdate = Type.Object(
  {
    status: Type.Optional(StringEnum(CLIENT_SUBSCRIPTION_STATUSES)),
    events: Type.Optional(Type.Array(EventPattern, { minItems: 1, maxItems: 50, uniqueItems: true })),
    endpoint: Type.Optional(Type.String({ minLength: 8, maxLength: 2000 })),
    rotateSecret: Type.Optional(
      Type.Boolean({ description: 'true issues a new secret; the old one keeps signing for 24 h' }),
    ),
    secret: Type.Optional(
      Type.String({
        pattern: '^whsec_[A-Za-z0-9+/]{16,}={0,2}$',
        description: 'rotate to this secret instead of a generated one',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { $id: 'SubscriptionUpdate' },
);

export const DeliveryCreate = Type.Object(
  { eventId: Type.String({ minLength: 1 }), subscriptionId: Type.String({ minLength: 1 }) },
  { $id: 'DeliveryCreate' },
);
export const DeliveryListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
    subscriptionId: Type.Optional(Type.String()),
    eventId: Type.Optional(Type.String()),
  }),
]);
const LeaseSeconds = Type.Integer({ minimum: 1, maximum: 3600, default: 60 });
export const ClaimRequest = Type.Object(
  { leaseSeconds: LeaseSeconds, workerId: Type.Optional(Type.String({ maxLength: 200 })) },
  { $id: 'DeliveryClaim' },
);
export const ClaimBatchRequest = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
    leaseSeconds: LeaseSeconds,
    workerId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'DeliveryClaimBatch' },
);
export const LeaseToken = Type.Object(
  { leaseToken: Type.String({ minLength: 1, maxLength: 200 }) },
  { $id: 'DeliveryLeaseToken' },
);
export const LeaseRenew = Type.Object(
  { leaseToken: Type.String({ minLength: 1 }), leaseSeconds: LeaseSeconds },
  { $id: 'DeliveryLeaseRenew' },
);
export const CompleteRequest = Type.Object(
  {
    leaseToken: Type.String({ minLength: 1 }),
    responseStatus: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    responseExcerpt: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { $id: 'DeliveryComplete' },
);
export const FailRequest = Type.Object(
  {
    leaseToken: Type.String({ minLength: 1 }),
    error: Type.Optional(Type.String({ maxLength: 2000 })),
    responseStatus: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    retry: Type.Boolean({ default: true, description: 'schedule the next attempt on the retry schedule' }),
    retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 36_000 })),
  },
  { $id: 'DeliveryFail' },
);
export const DeliveryUpdate = Type.Object(
  { nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })), metadata: Type.Optional(AnyObject) },
  { $id: 'DeliveryUpdate' },
);

// What the event routes answer (jobs/events/views.ts builds them).

export const EventView = Type.Object(
  {
    eventId: Type.String(),
    type: Type.String(),
    source: StringEnum(EVENT_SOURCES),
    subject: Nullable(Type.String()),
    payload: AnyObject,
    createdAt: Timestamp,
    acknowledged: Type.Boolean(),
    ackedAt: Nullable(Timestamp),
  },
  { $id: 'Event' },
);
export const EventRecorded = Ok(
  { event: EventView, deliveries: Type.Integer({ description: 'Attempts queued for matching subscriptions' }) },
  'EventRecorded',
);
export const EventAnswer = Ok({ event: EventView }, 'EventAnswer');
export const EventDetail = Ok(
  {
    event: EventView,
    deliveries: Type.Array(
      Type.Object({
        deliveryId: Type.String(),
        subscriptionId: Type.String(),
        attempt: Type.Integer(),
        status: StringEnum(DELIVERY_STATUSES),
      }),
    ),
  },
  'EventDetail',
);
export const EventPage = Page('events', EventView, 'EventPage');

export const SubscriptionView = Type.Object(
  {
    subscriptionId: Type.String(),
    endpoint: Type.String(),
    events: Type.Array(Type.String()),
    status: StringEnum(SUBSCRIPTION_STATUSES),
    mode: StringEnum(SUBSCRIPTION_MODES),
    description: Nullable(Type.String()),
    secretRotation: Nullable(Type.Object({ previousSecretValidUntil: Timestamp })),
    failingSince: Nullable(Timestamp),
    disabledReason: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Subscription' },
);
export const SubscriptionAnswer = Ok({ subscription: SubscriptionView }, 'SubscriptionAnswer');
/** Creation and rotation show the signing secret, once (the routes are marked returnsSecret). */
export const SubscriptionCreated = Ok(
  { subscription: SubscriptionView, secret: Type.String({ description: 'The signing secret, shown once' }) },
  'SubscriptionCreated',
);
export const SubscriptionUpdated = Ok(
  {
    subscription: SubscriptionView,
    secret: Type.Optional(Type.String({ description: 'The new signing secret after a rotation, shown once' })),
  },
  'SubscriptionUpdated',
);
export const SubscriptionPage = Page('subscriptions', SubscriptionView, 'SubscriptionPage');

export const EventDeliveryView = Type.Object(
  {
    deliveryId: Type.String(),
    eventId: Type.String(),
    subscriptionId: Type.String(),
    rootId: Type.String({ description: 'The first attempt of its retry chain' }),
    parentId: Nullable(Type.String()),
    attempt: Type.Integer(),
    status: StringEnum(DELIVERY_STATUSES),
    nextAttemptAt: Nullable(Timestamp),
    leaseExpiresAt: Nullable(Timestamp),
    claimedBy: Nullable(Type.String()),
    responseStatus: Nullable(Type.Integer()),
    responseExcerpt: Nullable(Type.String()),
    error: Nullable(Type.String()),
    metadata: AnyObject,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    finishedAt: Nullable(Timestamp),
    leaseToken: Type.Optional(Type.String({ description: 'Only in a claim answer, to its claimer' })),
  },
  { $id: 'EventDelivery' },
);
export const EventDeliveryAnswer = Ok({ delivery: EventDeliveryView }, 'EventDeliveryAnswer');
export const EventDeliveryClaimed = Ok({ delivery: Nullable(EventDeliveryView) }, 'EventDeliveryClaimed');
export const EventDeliveryList = Ok({ deliveries: Type.Array(EventDeliveryView) }, 'EventDeliveryList');
export const EventDeliveryPage = Page('deliveries', EventDeliveryView, 'EventDeliveryPage');
export const EventDeliveryFailed = Ok(
  { delivery: EventDeliveryView, next: Nullable(EventDeliveryView) },
  'EventDeliveryFailed',
);
export const EventDeliveryChain = Ok(
  { rootId: Type.String(), chain: Type.Array(EventDeliveryView) },
  'EventDeliveryChain',
);
export const EventDeliveryStats = Ok(
  {
    stats: Type.Object({
      byStatus: Type.Record(Type.String(), Type.Integer()),
      oldestQueuedAgeSec: Nullable(Type.Integer()),
      last24h: Type.Object({ completed: Type.Integer(), failed: Type.Integer(), failureRate: Type.Number() }),
    }),
  },
  'EventDeliveryStats',
);
export const LeasesSwept = Ok(
  { returned: Type.Array(Type.String(), { description: 'The attempts whose expired lease returned them to queued' }) },
  'LeasesSwept',
);
