import { iso } from '../../shared/db/knex.js';
import type { DeliveryRow } from '../../shared/db/deliveries.js';
import type { EventRow } from '../../shared/db/outbox.js';
import type { SubscriptionRow } from './subscriptions-repository.js';

export function eventView(e: EventRow) {
  return {
    eventId: e.id,
    type: e.type,
    source: e.source,
    subject: e.subject,
    payload: e.payload,
    createdAt: iso(e.created_at),
    acknowledged: Boolean(e.acked_at),
    ackedAt: iso(e.acked_at),
  };
}

/** An event's attempt in the short form the event shows. */
export function eventDeliveryView(d: DeliveryRow) {
  return { deliveryId: d.id, subscriptionId: d.subscription_id, attempt: d.attempt, status: d.status };
}

/** The subscription as clients see it: never its secrets. */
export function subscriptionView(s: SubscriptionRow) {
  return {
    subscriptionId: s.id,
    endpoint: s.endpoint,
    events: s.events,
    status: s.status,
    mode: s.mode,
    description: s.description,
    secretRotation:
      s.previous_secret_expires_at && new Date(s.previous_secret_expires_at).getTime() > Date.now()
        ? { previousSecretValidUntil: iso(s.previous_secret_expires_at) }
        : null,
    failingSince: iso(s.failing_since),
    disabledReason: s.disabled_reason,
    createdAt: iso(s.created_at),
    updatedAt: iso(s.updated_at),
  };
}

export function deliveryView(d: DeliveryRow) {
  return {
    deliveryId: d.id,
    eventId: d.event_id,
    subscriptionId: d.subscription_id,
    rootId: d.root_id,
    parentId: d.parent_id,
    attempt: d.attempt,
    status: d.status,
    nextAttemptAt: iso(d.next_attempt_at),
    leaseExpiresAt: iso(d.lease_expires_at),
    claimedBy: d.claimed_by,
    responseStatus: d.response_status,
    responseExcerpt: d.response_excerpt,
    error: d.error,
    metadata: d.metadata,
    createdAt: iso(d.created_at),
    updatedAt: iso(d.updated_at),
    finishedAt: iso(d.finished_at),
  };
}

/** A claimed attempt, with the lease token only its claimer ever sees. */
export const claimedView = (d: DeliveryRow) => ({ ...deliveryView(d), leaseToken: d.lease_token });
