import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import {
  completeLeased,
  insertChild,
  lockDelivery,
  updateDelivery,
  type DeliveryChange,
  type DeliveryRow,
} from '../../shared/db/deliveries.js';
import { conflict, notFound } from '../../shared/errors.js';
import { retryDelayMs } from './logic.js';
import { DELIVERIES, type DeliveryStatus } from './machines.js';
import { recordDeliveryFailure } from './subscriptions-service.js';
import { wakeDispatcher } from './wake.js';

export function retrySchedule(deps: Pick<Deps, 'config'>): number[] {
  return deps.config.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number);
}

/**
 * Locks an attempt for a lease-holder's action: 404 unknown, 409 when it is not claimed, the token is stale or the
 * lease expired.
 */
export async function lockLeased(trx: Db, accountId: string | null, id: string, token: string): Promise<DeliveryRow> {
  const row = await lockDelivery(trx, accountId, id);
  if (!row) throw notFound(`Delivery ${id}`);
  if (row.status !== 'claimed') throw conflict(`Delivery ${id} is ${row.status}, not claimed`, { status: row.status });
  if (row.lease_token !== token) throw conflict('Stale lease token: the lease was released, swept or claimed again');
  if (row.lease_expires_at && new Date(row.lease_expires_at).getTime() < Date.now())
    throw conflict('The lease has expired; claim the attempt again');
  return row;
}

/**
 * The one way a single attempt changes status: checks the move against the
 * table (409 otherwise) and writes what the move implies: a finished time on
 * a terminal status, the lease dropped when it leaves `claimed`, the claimer
 * forgotten when it goes back to `queued`. `row` must be locked in `trx`.
 * Claiming and sweeping move many rows in one set-based statement each,
 * and completing has a one-statement fast path; those repository queries
 * select on the same from-status.
 */
export async function transitionDelivery(
  trx: Db,
  row: DeliveryRow,
  to: DeliveryStatus,
  fields: Omit<DeliveryChange, 'status' | 'finished' | 'clearLease' | 'clearClaimer'> = {},
): Promise<DeliveryRow> {
  if (!DELIVERIES.canMove(row.status, to)) {
    const message = DELIVERIES.isTerminal(row.status)
      ? `Delivery ${row.id} is already ${row.status}`
      : `Delivery ${row.id} is ${row.status}; it cannot become ${to}`;
    throw conflict(message, { from: row.status, to, allowed: DELIVERIES.allowed(row.status) });
  }
  return updateDelivery(trx, row.id, {
    ...fields,
    status: to,
    finished: DELIVERIES.isTerminal(to),
    clearLease: row.status === 'claimed',
    clearClaimer: to === 'queued',
  });
}

/**
 * Completes a leased attempt. The hot path is one statement whose WHERE
 * clause holds the lease checks; when no row qualifies, `lockLeased` says
 * precisely why (404, finished, stale token, expired lease).
 */
export async function completeAttempt(
  deps: Deps,
  accountId: string | null,
  id: string,
  token: string,
  fields: { responseStatus?: number | null; responseExcerpt?: string | null } = {},
): Promise<DeliveryRow> {
  const done = await completeLeased(deps.db, accountId, id, token, {
    responseStatus: fields.responseStatus ?? null,
    responseExcerpt: fields.responseExcerpt ?? null,
  });
  if (done) return done;
  return deps.db.transaction(async (trx) => {
    await lockLeased(trx, accountId, id, token);
    throw new Error(`delivery ${id} could not be completed`); // unreachable: lockLeased throws the precise 404/409
  });
}

/**
 * Fails a leased attempt and, unless told not to, schedules the next one
 * (held while the subscription is paused), except when the subscription is
 * disabled or the retry schedule has no step left (`retryAfterMs` may only
 * push that step later: see retryDelayMs). The subscription side (failing
 * streak, disabling) is in the same transaction.
 */
export async function failAttempt(
  deps: Deps,
  accountId: string | null,
  id: string,
  token: string,
  opts: {
    error?: string | null;
    responseStatus?: number | null;
    responseExcerpt?: string | null;
    retry: boolean;
    retryAfterMs?: number | null;
    gone?: boolean;
  },
): Promise<{ delivery: DeliveryRow; next: DeliveryRow | null }> {
  const result = await deps.db.transaction(async (trx) => {
    const row = await lockLeased(trx, accountId, id, token);
    const delivery = await transitionDelivery(trx, row, 'failed', {
      error: opts.error ?? null,
      responseStatus: opts.responseStatus ?? null,
      responseExcerpt: opts.responseExcerpt ?? null,
    });
    const { retry } = await recordDeliveryFailure(trx, row.subscription_id, { gone: opts.gone });
    const delay = retryDelayMs(row.attempt, retrySchedule(deps), opts.retryAfterMs ?? null);
    const next = opts.retry && retry && !opts.gone && delay !== null ? await insertChild(trx, row, delay) : null;
    return { delivery, next, delay };
  });
  if (result.next) await wakeDispatcher(deps, result.delay ?? 0);
  return { delivery: result.delivery, next: result.next };
}

/**
 * Hands a leased attempt back to the queue without counting a failure and
 * without touching its due time, so it keeps its place in line: `held` when
 * its subscription was paused after the claim (the resume releases it), not
 * held when the dispatcher ran out of lease time to send it.
 */
export async function handBack(deps: Deps, id: string, token: string, opts: { held: boolean }): Promise<DeliveryRow> {
  return deps.db.transaction(async (trx) =>
    transitionDelivery(trx, await lockLeased(trx, null, id, token), 'queued', { held: opts.held }),
  );
}
