import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { holdQueued, releaseHeld } from '../../shared/db/deliveries.js';
import { recordEvent } from '../../shared/db/outbox.js';
import {
  getSubscription,
  insertSubscription,
  listSubscriptions,
  lockSubscription,
  markFailing,
  updateSubscription,
  type SubscriptionChange,
  type SubscriptionRow,
} from './subscriptions-repository.js';
import { notFound } from '../../shared/errors.js';
import { checkEgressUrl } from '../../shared/http/egress.js';
import { newId } from '../../shared/ids.js';
import { seal } from '../../shared/vault/index.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { DISABLE_AFTER_FAILING_MS, HELD_MAX_AGE_MS, HELD_TOO_LONG, newWebhookSecret } from './logic.js';
import { SUBSCRIPTIONS, type SubscriptionStatus } from './machines.js';
import { wakeDispatcher } from './wake.js';

/** How long a rotated-out secret keeps signing, so receivers can switch without losing deliveries. */
const ROTATION_OVERLAP_HOURS = 24;

function checkEndpoint(deps: Pick<Deps, 'config'>, endpoint: string): string {
  return checkEgressUrl(endpoint, {
    allowPrivate: deps.config.AWP_ALLOW_PRIVATE_EGRESS,
    requireHttps: deps.config.NODE_ENV === 'production',
  }).toString();
}

/**
 * The one way a subscription changes status: checks the move against the
 * table (409 otherwise) and writes what the move implies in the same
 * transaction: becoming disabled writes `subscription.disabled`; pausing
 * holds its queued attempts (events raised while paused are held too, by
 * the fan-out); becoming active again releases the held ones, except those
 * whose event is older than HELD_MAX_AGE_MS, which are canceled with
 * HELD_TOO_LONG. `sub` must be locked in `trx` (FOR UPDATE: that orders the
 * move with concurrent fan-outs). Staying put re-applies the status's fields
 * without an event, so resuming an active subscription still clears its
 * failing streak.
 */
export async function transitionSubscription(
  trx: Db,
  sub: SubscriptionRow,
  to: SubscriptionStatus,
  opts: { reason?: string; change?: SubscriptionChange } = {},
): Promise<SubscriptionRow> {
  const moves = sub.status !== to;
  if (moves) SUBSCRIPTIONS.assertMove(sub.status, to, 'A subscription');
  const row = await updateSubscription(trx, sub.id, {
    ...opts.change,
    status: to,
    disabledReason: to === 'disabled' ? (opts.reason ?? null) : null,
    clearFailing: to === 'active',
  });
  if (moves && to === 'disabled') {
    await recordEvent(trx, {
      accountId: sub.account_id,
      type: 'subscription.disabled',
      subject: sub.id,
      payload: { subscriptionId: sub.id, reason: opts.reason ?? null },
    });
  }
  if (moves && to === 'paused') await holdQueued(trx, sub.id);
  if (moves && to === 'active') await releaseHeld(trx, sub.id, HELD_MAX_AGE_MS, HELD_TOO_LONG);
  return row;
}

/**
 * The subscription side of a failed attempt: starts its failing streak, and
 * disables it on 410 Gone or after failing for 5 days without a success.
 * Returns whether a retry may be scheduled: not once it is disabled, but
 * while it is paused, yes (the retry is held until the resume), so an
 * attempt that was in flight at the pause is not lost.
 */
export async function recordDeliveryFailure(
  trx: Db,
  subscriptionId: string,
  opts: { gone?: boolean },
): Promise<{ retry: boolean }> {
  let sub = await markFailing(trx, subscriptionId);
  if (!sub) return { retry: false };
  const reason = opts.gone
    ? 'the endpoint answered 410 Gone'
    : sub.failing_since && Date.now() - new Date(sub.failing_since).getTime() > DISABLE_AFTER_FAILING_MS
      ? 'deliveries failed continuously for 5 days'
      : null;
  if (reason && sub.status !== 'disabled') {
    const locked = await lockSubscription(trx, subscriptionId);
    if (locked) sub = await transitionSubscription(trx, locked, 'disabled', { reason });
  }
  return { retry: sub.status !== 'disabled' };
}

export async function createSubscription(
  deps: Deps,
  principal: Principal,
  input: { endpoint: string; events: string[]; secret?: string; description?: string; mode: SubscriptionRow['mode'] },
): Promise<{ row: SubscriptionRow; secret: string }> {
  const endpoint = checkEndpoint(deps, input.endpoint);
  const secret = input.secret ?? newWebhookSecret();
  // Stored sealed under the account's data key; the plaintext is answered once, here.
  const sealed = await seal(deps, principal.accountId, secret);
  const row = await insertSubscription(deps.db, {
    id: newId('sub'),
    account_id: principal.accountId,
    endpoint,
    events: input.events,
    secret: sealed,
    description: input.description ?? null,
    mode: input.mode,
  });
  return { row, secret };
}

export async function findSubscriptions(deps: Deps, principal: Principal, query: { limit?: number; cursor?: string }) {
  return listSubscriptions(deps.db, principal.accountId, query.limit ?? 50, query.cursor);
}

export async function fetchSubscription(deps: Deps, principal: Principal, id: string): Promise<SubscriptionRow> {
  const sub = await getSubscription(deps.db, principal.accountId, id);
  if (!sub) throw notFound(`Subscription ${id}`);
  return sub;
}

/**
 * A client's update: status (pause or resume), events, endpoint,
 * description, or a secret rotation; the new secret is returned once.
 */
export async function updateSubscriptionByClient(
  deps: Deps,
  principal: Principal,
  id: string,
  input: {
    status?: 'active' | 'paused';
    events?: string[];
    endpoint?: string;
    description?: string;
    rotateSecret?: boolean;
    secret?: string;
  },
): Promise<{ row: SubscriptionRow; secret?: string }> {
  const secret = input.rotateSecret || input.secret ? (input.secret ?? newWebhookSecret()) : undefined;
  const sealed = secret ? await seal(deps, principal.accountId, secret) : undefined;
  const { result, resumed } = await deps.db.transaction(async (trx) => {
    const sub = await getSubscription(trx, principal.accountId, id, true);
    if (!sub) throw notFound(`Subscription ${id}`);
    const endpoint = input.endpoint ? checkEndpoint(deps, input.endpoint) : undefined;
    const change: SubscriptionChange = {
      events: input.events,
      endpoint,
      description: input.description,
      // The current secret moves to previous as stored (sealed): no need to open it.
      rotate: sealed
        ? { secret: sealed, previousSecret: sub.secret, previousValidHours: ROTATION_OVERLAP_HOURS }
        : undefined,
    };
    const row = input.status
      ? await transitionSubscription(trx, sub, input.status, { change })
      : await updateSubscription(trx, sub.id, change);
    return {
      result: { row, ...(secret ? { secret } : {}) },
      resumed: sub.status !== 'active' && row.status === 'active',
    };
  });
  // Released attempts are due already; the dispatcher learns of them after commit.
  if (resumed) await wakeDispatcher(deps);
  return result;
}
