import type { Deps } from '../../shared/deps.js';
import {
  claimDeliveries,
  insertChild,
  insertRootDelivery,
  lockDelivery,
  readyDeliveries,
  sweepExpiredLeases,
  updateDelivery,
  type DeliveryRow,
} from '../../shared/db/deliveries.js';
import { chainOf, deliveryCounts, getDelivery, hasChild, listDeliveries } from '../../shared/db/delivery-reads.js';
import type { Db } from '../../shared/db/knex.js';
import { getEvent } from '../../shared/db/outbox.js';
import { getSubscription } from './subscriptions-repository.js';
import { conflict, notFound } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { completeAttempt, failAttempt, lockLeased, transitionDelivery } from './ledger.js';
import { DELIVERIES } from './machines.js';
import { wakeDispatcher } from './wake.js';

// The ledger as a client's workers drive it for `pull` subscriptions, and inspect it for both modes.

/** A finished attempt that did not succeed can be retried; a completed one has nothing to retry. */
const RETRYABLE: readonly string[] = DELIVERIES.terminal.filter((s) => s !== 'completed');

async function lockOwn(trx: Db, principal: Principal, id: string): Promise<DeliveryRow> {
  const row = await lockDelivery(trx, principal.accountId, id);
  if (!row) throw notFound(`Delivery ${id}`);
  return row;
}

/** The root attempt of an event for a subscription; 409 when that chain exists already. */
export async function createRootDelivery(
  deps: Deps,
  principal: Principal,
  input: { eventId: string; subscriptionId: string },
): Promise<DeliveryRow> {
  const event = await getEvent(deps.db, principal.accountId, input.eventId);
  if (!event) throw notFound(`Event ${input.eventId}`);
  const sub = await getSubscription(deps.db, principal.accountId, input.subscriptionId);
  if (!sub) throw notFound(`Subscription ${input.subscriptionId}`);
  const row = await insertRootDelivery(deps.db, {
    account_id: principal.accountId,
    event_id: event.id,
    subscription_id: sub.id,
    mode: sub.mode,
  });
  if (!row)
    throw conflict('This event already has a delivery chain for this subscription; use retry on its last attempt');
  await wakeDispatcher(deps);
  return row;
}

export async function findDeliveries(
  deps: Deps,
  principal: Principal,
  query: { status?: string; subscriptionId?: string; eventId?: string; limit?: number; cursor?: string },
) {
  return listDeliveries(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
}

export async function fetchDelivery(deps: Deps, principal: Principal, id: string): Promise<DeliveryRow> {
  const row = await getDelivery(deps.db, principal.accountId, id);
  if (!row) throw notFound(`Delivery ${id}`);
  return row;
}

export async function deliveryChain(
  deps: Deps,
  principal: Principal,
  id: string,
): Promise<{ rootId: string; chain: DeliveryRow[] }> {
  const row = await fetchDelivery(deps, principal, id);
  return { rootId: row.root_id, chain: await chainOf(deps.db, row.root_id) };
}

export async function dueDeliveries(deps: Deps, principal: Principal, limit: number): Promise<DeliveryRow[]> {
  return readyDeliveries(deps.db, principal.accountId, limit);
}

/** Queue health: attempts by status, age of the oldest queued one, and the last 24 h failure rate. */
export async function deliveryStats(deps: Deps, principal: Principal) {
  const { byStatus, oldestQueuedAt, finished24h } = await deliveryCounts(deps.db, principal.accountId);
  const completed = finished24h.completed ?? 0;
  const failed = finished24h.failed ?? 0;
  return {
    byStatus: Object.fromEntries(DELIVERIES.statuses.map((s) => [s, byStatus[s] ?? 0])),
    oldestQueuedAgeSec: oldestQueuedAt
      ? Math.max(0, Math.round((Date.now() - new Date(oldestQueuedAt).getTime()) / 1000))
      : null,
    last24h: {
      completed,
      failed,
      failureRate: completed + failed ? Math.round((failed / (completed + failed)) * 1000) / 1000 : 0,
    },
  };
}

/** Claims up to `limit` due attempts of the account's pull subscriptions, each under its own lease. */
export async function claimPull(
  deps: Deps,
  principal: Principal,
  opts: { limit: number; leaseSeconds: number; workerId?: string },
): Promise<DeliveryRow[]> {
  return claimDeliveries(deps.db, {
    accountId: principal.accountId,
    mode: 'pull',
    limit: opts.limit,
    leaseSeconds: opts.leaseSeconds,
    claimedBy: opts.workerId ?? `token:${principal.tokenId}`,
  });
}

export async function sweepLeasesOf(deps: Deps, principal: Principal): Promise<string[]> {
  return sweepExpiredLeases(deps.db, principal.accountId);
}

/** A new child attempt, due now, of a failed or canceled one that has none yet. */
export async function retryDelivery(deps: Deps, principal: Principal, id: string): Promise<DeliveryRow> {
  const child = await deps.db.transaction(async (trx) => {
    const row = await lockOwn(trx, principal, id);
    if (!RETRYABLE.includes(row.status))
      throw conflict(`Only failed or canceled attempts can be retried; this one is ${row.status}`);
    if (await hasChild(trx, row.id))
      throw conflict('This attempt already has a retry; retry the last attempt of the chain');
    return insertChild(trx, row, 0);
  });
  await wakeDispatcher(deps);
  return child;
}

export async function failByClient(
  deps: Deps,
  principal: Principal,
  id: string,
  input: { leaseToken: string; error?: string; responseStatus?: number; retry: boolean; retryAfterSeconds?: number },
): Promise<{ delivery: DeliveryRow; next: DeliveryRow | null }> {
  return failAttempt(deps, principal.accountId, id, input.leaseToken, {
    error: input.error ?? 'failed by the claimer',
    responseStatus: input.responseStatus ?? null,
    retry: input.retry,
    retryAfterMs: input.retryAfterSeconds !== undefined ? input.retryAfterSeconds * 1000 : null,
  });
}

export async function completeByClient(
  deps: Deps,
  principal: Principal,
  id: string,
  input: { leaseToken: string; responseStatus?: number; responseExcerpt?: string },
): Promise<DeliveryRow> {
  return completeAttempt(deps, principal.accountId, id, input.leaseToken, {
    responseStatus: input.responseStatus ?? null,
    responseExcerpt: input.responseExcerpt ?? null,
  });
}

export async function cancelDelivery(deps: Deps, principal: Principal, id: string): Promise<DeliveryRow> {
  return deps.db.transaction(async (trx) => transitionDelivery(trx, await lockOwn(trx, principal, id), 'canceled'));
}

export async function renewLease(
  deps: Deps,
  principal: Principal,
  id: string,
  input: { leaseToken: string; leaseSeconds: number },
): Promise<DeliveryRow> {
  return deps.db.transaction(async (trx) =>
    updateDelivery(trx, (await lockLeased(trx, principal.accountId, id, input.leaseToken)).id, {
      leaseSeconds: input.leaseSeconds,
    }),
  );
}

export async function releaseDelivery(
  deps: Deps,
  principal: Principal,
  id: string,
  leaseToken: string,
): Promise<DeliveryRow> {
  return deps.db.transaction(async (trx) =>
    transitionDelivery(trx, await lockLeased(trx, principal.accountId, id, leaseToken), 'queued'),
  );
}

/** Reschedules a queued attempt or merges metadata into an unfinished one; finished attempts never change. */
export async function updateDeliveryByClient(
  deps: Deps,
  principal: Principal,
  id: string,
  input: { nextAttemptAt?: string; metadata?: Record<string, unknown> },
): Promise<DeliveryRow> {
  return deps.db.transaction(async (trx) => {
    const row = await lockOwn(trx, principal, id);
    if (DELIVERIES.isTerminal(row.status))
      throw conflict(`Delivery ${row.id} is ${row.status}; finished attempts cannot change`);
    if (input.nextAttemptAt && row.status !== 'queued') throw conflict('Only a queued attempt can be rescheduled');
    return updateDelivery(trx, row.id, {
      nextAttemptAt: input.nextAttemptAt,
      metadata: input.metadata ? { ...row.metadata, ...input.metadata } : undefined,
    });
  });
}
