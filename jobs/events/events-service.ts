import type { Deps } from '../../shared/deps.js';
import { deliveriesOfEvent, type DeliveryRow } from '../../shared/db/deliveries.js';
import { ackEvent, getEvent, listEvents, recordEvent, type EventRow } from '../../shared/db/outbox.js';
import { notFound } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { wakeDispatcher } from './wake.js';

// The outbox as clients see it: events they record and the ones the service wrote for them.

async function fetchEvent(deps: Deps, principal: Principal, eventId: string): Promise<EventRow> {
  const event = await getEvent(deps.db, principal.accountId, eventId);
  if (!event) throw notFound(`Event ${eventId}`);
  return event;
}

/** Records a client's event; it fans out to matching subscriptions in the same transaction. */
export async function recordClientEvent(deps: Deps, principal: Principal, input: { type: string; payload: Record<string, unknown>; subject?: string }): Promise<{ event: EventRow; deliveries: number }> {
  const { eventId, deliveries } = await deps.db.transaction((trx) => recordEvent(trx, { accountId: principal.accountId, type: input.type, payload: input.payload, subject: input.subject, source: 'api' }));
  if (deliveries > 0) await wakeDispatcher(deps);
  return { event: await fetchEvent(deps, principal, eventId), deliveries };
}

export async function findEvents(deps: Deps, principal: Principal, query: { type?: string; since?: string; until?: string; acknowledged?: boolean; limit?: number; cursor?: string }) {
  return listEvents(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
}

export async function fetchEventWithDeliveries(deps: Deps, principal: Principal, eventId: string): Promise<{ event: EventRow; deliveries: DeliveryRow[] }> {
  const event = await fetchEvent(deps, principal, eventId);
  return { event, deliveries: await deliveriesOfEvent(deps.db, event.id) };
}

/** Acknowledges an event; acknowledging again keeps the first time. */
export async function acknowledgeEvent(deps: Deps, principal: Principal, eventId: string): Promise<EventRow> {
  await fetchEvent(deps, principal, eventId);
  await ackEvent(deps.db, principal.accountId, eventId);
  return fetchEvent(deps, principal, eventId);
}
