import type { Deps } from '../../shared/deps.js';
import type { DeliveryRow } from '../../shared/db/deliveries.js';
import { deliveriesOfEvent } from '../../shared/db/delivery-reads.js';
import { ackEvent, getEvent, listEvents, recordEvent, type EventRow } from '../../shared/db/outbox.js';
import { notFound, policyViolation } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { eventTypes } from './registry.js';
import { fromModules } from '../module-registry.js';
import { wakeDispatcher } from './wake.js';

// The outbox as clients see it: events they record and the ones the service wrote for them.

async function fetchEvent(deps: Deps, principal: Principal, eventId: string): Promise<EventRow> {
  const event = await getEvent(deps.db, principal.accountId, eventId);
  if (!event) throw notFound(`Event ${eventId}`);
  return event;
}

/** Types the spec names for domains not built yet (pay, proxy): reserved before they are registered. */
const SPEC_EVENT_TYPES = ['pay.settled', 'proxy.outcome'];

/**
 * Namespaces only the service writes in: the first segment of every
 * registered type and of the spec's types (`run.`, `task.`,
 * `subscription.`, a domain's own). A whole namespace, not just the types
 * registered today, so a client event cannot take a name the service adds
 * later, and `run.*` subscribers never get a client's event.
 */
const reservedNamespaces = fromModules(
  () => new Set([...Object.keys(eventTypes()), ...SPEC_EVENT_TYPES].map((t) => t.split('.')[0]!)),
);

/** The reserved namespace `type` falls in, or null when a client may record it. */
function reservedNamespace(type: string): string | null {
  const ns = type.split('.')[0]!;
  return reservedNamespaces().has(ns) ? ns : null;
}

/**
 * Records a client's event; it fans out to matching subscriptions in the
 * same transaction, marked `source: client`. Types in the service's
 * namespaces are refused (422) so a client cannot forge a system event.
 */
export async function recordClientEvent(
  deps: Deps,
  principal: Principal,
  input: { type: string; payload: Record<string, unknown>; subject?: string },
): Promise<{ event: EventRow; deliveries: number }> {
  const ns = reservedNamespace(input.type);
  if (ns) {
    throw policyViolation(
      `Event types under ${ns}. are written by the service only; record your own events under a namespace of ` +
        `yours (e.g. invoice.paid)`,
      {
        type: input.type,
        reservedNamespaces: [...reservedNamespaces()].sort(),
      },
    );
  }
  const { eventId, deliveries } = await deps.db.transaction((trx) =>
    recordEvent(trx, {
      accountId: principal.accountId,
      type: input.type,
      payload: input.payload,
      subject: input.subject,
      source: 'client',
    }),
  );
  if (deliveries > 0) await wakeDispatcher(deps);
  return { event: await fetchEvent(deps, principal, eventId), deliveries };
}

export async function findEvents(
  deps: Deps,
  principal: Principal,
  query: { type?: string; since?: string; until?: string; acknowledged?: boolean; limit?: number; cursor?: string },
) {
  return listEvents(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
}

export async function fetchEventWithDeliveries(
  deps: Deps,
  principal: Principal,
  eventId: string,
): Promise<{ event: EventRow; deliveries: DeliveryRow[] }> {
  const event = await fetchEvent(deps, principal, eventId);
  return { event, deliveries: await deliveriesOfEvent(deps.db, event.id) };
}

/** Acknowledges an event; acknowledging again keeps the first time. */
export async function acknowledgeEvent(deps: Deps, principal: Principal, eventId: string): Promise<EventRow> {
  await fetchEvent(deps, principal, eventId);
  await ackEvent(deps.db, principal.accountId, eventId);
  return fetchEvent(deps, principal, eventId);
}
