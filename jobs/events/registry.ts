import { Type, type TSchema } from '@sinclair/typebox';
import { StringEnum } from '../../shared/schemas/common.js';
import { EVENT_SOURCES } from '../../shared/schemas/events.js';
import { check, type FieldError } from '../../shared/validation.js';
import type { DomainEvent, DomainModule } from '../domain.js';
import { DOMAIN_NAMES } from '../../shared/domain-names.js';
import { fromModules } from '../module-registry.js';
import { FINAL_OUTCOMES, WAIT_STATUSES, type RunOutcome } from '../orchestrator/run-state.js';

/**
 * The event types the service writes to the outbox (and so delivers to
 * webhooks): the engine's own, then each domain module's `events`. The
 * OpenAPI `webhooks`, the payload schemas in /v1/schemas and
 * `checkEventPayload` derive from this one table. Types a client records
 * through POST /v1/events are the client's own and are not listed here.
 */

/** An event type and where it comes from (`core`, or the domain module that declares it). */
export interface EventTypeSpec extends DomainEvent {
  type: string;
  origin: string;
}

const finalWith = (outcome: RunOutcome) => Object.keys(FINAL_OUTCOMES).filter((s) => FINAL_OUTCOMES[s] === outcome);

/** One payload shape for every `run.*` type (jobs/orchestrator/finalize.ts), each with the statuses it can carry. */
function runPayload(id: string, statuses: string[]): TSchema {
  return Type.Object(
    {
      runId: Type.String(),
      status: StringEnum(statuses, { description: 'The status the run rests at' }),
      route: Type.Array(Type.String(), { description: 'Domains of the run, in order' }),
      proofCardId: Type.Union([Type.String(), Type.Null()], {
        description: 'The proof card made at this rest; null for failed and canceled runs',
      }),
      error: Type.Optional(Type.String({ description: 'Why the run failed' })),
    },
    { $id: id },
  );
}

const CORE: Record<string, DomainEvent> = {
  'run.completed': {
    description: "A run came to rest successfully (ready, or a domain's own success status)",
    payload: runPayload('RunCompletedPayload', finalWith('succeeded')),
  },
  'run.failed': {
    description: 'A run failed (a step failed, timed out or got stuck, or a domain ended it as failed)',
    payload: runPayload('RunFailedPayload', finalWith('failed')),
  },
  'run.canceled': {
    description: 'A run was canceled',
    payload: runPayload('RunCanceledPayload', finalWith('canceled')),
  },
  'run.waiting': {
    description: 'A run rests at a waitpoint until it is answered (a choice, a human, an approval)',
    payload: runPayload('RunWaitingPayload', WAIT_STATUSES),
  },
  'task.completed': {
    description: 'A task moved to completed (by its run, or through the task API)',
    payload: Type.Object(
      {
        taskId: Type.String(),
        domain: StringEnum(DOMAIN_NAMES),
        outData: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
          description: "The task's outData at completion",
        }),
      },
      { $id: 'TaskCompletedPayload' },
    ),
  },
  'waitpoint.escalated': {
    description:
      'An approval or a choice nobody answered is near its expiry: the approvers (an approval) or ' +
      "the run's submitter (a choice) were mailed; at expiresAt the run fails closed (`expired`)",
    payload: Type.Object(
      {
        runId: Type.String(),
        waitpointId: Type.String(),
        kind: Type.String({ description: 'awaitingApproval or NEEDS_INPUT' }),
        gate: Type.Union([Type.String(), Type.Null()], {
          description: 'deploy, payment, autonomy or waitpoint; null for a choice',
        }),
        domain: Type.String(),
        expiresAt: Type.String({ format: 'date-time' }),
      },
      { $id: 'WaitpointEscalatedPayload' },
    ),
  },
  'subscription.disabled': {
    description:
      'A webhook subscription was disabled: its endpoint answered 410 Gone, or failed without a success for 5 days',
    payload: Type.Object(
      { subscriptionId: Type.String(), reason: Type.String() },
      { $id: 'SubscriptionDisabledPayload' },
    ),
  },
};

/** `pay.settled` → `PaySettledPayload`: the `$id` of a domain payload schema declared without one. */
const payloadId = (type: string) =>
  `${type
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Payload`;

/**
 * Core types merged with every module's `events`. A type declared twice is a
 * startup error: two meanings for one name would reach subscribers as one.
 */
export function collectEventTypes(
  modules: readonly Pick<DomainModule, 'name' | 'events'>[],
): Record<string, EventTypeSpec> {
  const all: Record<string, EventTypeSpec> = {};
  const add = (type: string, event: DomainEvent, origin: string) => {
    if (all[type]) throw new Error(`event type ${type} is declared by ${all[type].origin} and by ${origin}`);
    const id = (event.payload as { $id?: string }).$id;
    all[type] = {
      type,
      origin,
      description: event.description,
      payload: id ? event.payload : { ...event.payload, $id: payloadId(type) },
    };
  };
  for (const [type, event] of Object.entries(CORE)) add(type, event, 'core');
  for (const module of modules)
    for (const [type, event] of Object.entries(module.events ?? {})) add(type, event, module.name);
  return all;
}

/** The core types, then the modules' (the domains', then services' such as signals and schedules), built once. */
export const eventTypes: () => Readonly<Record<string, EventTypeSpec>> = fromModules((m) =>
  collectEventTypes(m.eventSources),
);

export function isRegisteredEvent(type: string): boolean {
  return Object.hasOwn(eventTypes(), type);
}

/**
 * Checks a payload against its type's schema: [] when it conforms. An
 * unregistered type is an error too, so a writer cannot slip one past the
 * registry; callers that also accept clients' own types (POST /v1/events)
 * ask `isRegisteredEvent` first.
 */
export function checkEventPayload(type: string, payload: unknown): FieldError[] {
  const spec = eventTypes()[type];
  if (!spec) return [{ path: '/type', message: `${type} is not a registered event type`, keyword: 'eventType' }];
  return check(spec.payload, payload);
}

/**
 * The JSON body a subscriber receives for `type`: webhookBody in
 * jobs/events/deliver.ts (Standard Webhooks' type, timestamp and data, plus
 * eventId, subject and source), with the type's payload schema as `data`.
 */
export function webhookEnvelope(type: string): TSchema {
  const spec = eventTypes()[type];
  if (!spec) throw new Error(`unregistered event type ${type}`);
  return Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({
        format: 'date-time',
        description: 'When the event was recorded (not when this attempt was sent)',
      }),
      data: spec.payload,
      eventId: Type.String({ description: 'The event (evt_...); GET /v1/events/{eventId}' }),
      subject: Type.Union([Type.String(), Type.Null()], {
        description: 'The record the event is about (run_..., task_..., sub_...)',
      }),
      source: StringEnum(EVENT_SOURCES, {
        description:
          'Who wrote the event: `service` for every type listed here (clients cannot record them: 422); ' +
          '`client` for a type a client recorded through POST /v1/events',
      }),
    },
    { description: spec.description },
  );
}

/** Standard Webhooks headers of every delivery (jobs/events/logic.ts webhookHeaders). */
export const WEBHOOK_HEADERS: Record<string, { description: string; schema: TSchema }> = {
  'webhook-id': {
    description: 'Message id: the id of the first delivery attempt, the same on every retry; deduplicate on it',
    schema: Type.String({ minLength: 1 }),
  },
  'webhook-timestamp': {
    description: 'Unix seconds when this attempt was signed; reject a timestamp far from now (replay protection)',
    schema: Type.String({ pattern: '^[0-9]+$' }),
  },
  'webhook-signature': {
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with ' +
      'the base64-decoded part of the secret after whsec_; two signatures while a rotated secret overlaps ' +
      '(24 h). Verify with the standardwebhooks package.',
    schema: Type.String({ pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' }),
  },
};

/** What the dispatcher makes of the subscriber's answer (jobs/events/logic.ts verdictFor, 10 s timeout). */
export const WEBHOOK_RESPONSES: Record<string, string> = {
  '2XX': 'Delivered: the attempt is completed',
  '410': 'Gone: the subscription is disabled at once (and a subscription.disabled event is written)',
  '429': 'Retried after Retry-After (bounded to 5 s – 10 h)',
  default:
    'Any other answer, or none within 10 s, is retried on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, ' +
    '10 h; ±20 %)',
};
