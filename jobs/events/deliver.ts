import type { Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { claimDeliveries, nextPushDue, type DeliveryRow } from '../../shared/db/deliveries.js';
import { iso } from '../../shared/db/knex.js';
import { eventsByIds } from '../../shared/db/outbox.js';
import { subscriptionsByIds, type SubscriptionRow } from '../../shared/db/subscriptions.js';
import { egressFetch } from '../../shared/http/egress.js';
import { completeAttempt, failAttempt, postponeAttempt, wakeDispatcher } from './ledger.js';
import { retryAfterMs, signingSecrets, verdictFor, webhookHeaders } from './logic.js';

const BATCH = 20;
const EXCERPT = 1000;
const NEAR_MS = 1500;
const PAUSED_RECHECK_MS = 60_000;

/** The body every receiver gets: Standard Webhooks' `type`, `timestamp`, `data`, plus the event id, subject and who wrote it (service or client). */
export function webhookBody(event: EventRow): string {
  return JSON.stringify({ type: event.type, timestamp: iso(event.created_at), data: event.payload, eventId: event.id, subject: event.subject, source: event.source });
}

type EventRow = { id: string; type: string; source: string; subject: string | null; payload: unknown; created_at: Date };

/** Delivers one claimed attempt and settles it with its lease token. */
async function deliverOne(deps: Deps, d: DeliveryRow, sub: SubscriptionRow | undefined, event: EventRow | undefined): Promise<string> {
  if (!sub || !event || sub.status === 'disabled') {
    await failAttempt(deps, null, d.id, d.lease_token!, { error: 'subscription disabled or removed', retry: false });
    return 'dropped';
  }
  if (sub.status === 'paused') {
    // Paused: hand the attempt back, due again in a minute, without counting a failure.
    await postponeAttempt(deps, d.id, d.lease_token!, PAUSED_RECHECK_MS);
    return 'paused';
  }
  const body = webhookBody(event);
  const headers = webhookHeaders(signingSecrets(sub), d.root_id, Math.floor(Date.now() / 1000), body);
  let status: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  let retryAfter: string | undefined;
  try {
    const res = await egressFetch(deps.config.AWP_ALLOW_PRIVATE_EGRESS, sub.endpoint, { method: 'POST', headers, body, timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS, maxBytes: EXCERPT });
    status = res.status;
    excerpt = res.text.slice(0, EXCERPT);
    retryAfter = res.headers['retry-after'];
  } catch (err) {
    error = (err as Error).message.slice(0, 500);
  }
  const verdict = verdictFor(status);
  if (verdict === 'completed') {
    await completeAttempt(deps, null, d.id, d.lease_token!, { responseStatus: status, responseExcerpt: excerpt });
  } else {
    await failAttempt(deps, null, d.id, d.lease_token!, {
      error: error ?? `endpoint answered ${status}`, responseStatus: status, responseExcerpt: excerpt, retry: true,
      retryAfterMs: status === 429 ? retryAfterMs(retryAfter) : null, gone: verdict === 'disable',
    });
  }
  return verdict;
}

/**
 * The `webhooks` queue processor: claims due attempts in batches (SKIP
 * LOCKED, so any number of dispatchers cooperate) and delivers them until
 * none are due. Postgres is the queue of record; the job is only a wake-up.
 */
export async function dispatchDue(_job: Job | null, deps: Deps): Promise<{ delivered: number }> {
  let delivered = 0;
  for (;;) {
    const batch = await claimDeliveries(deps.db, { accountId: null, mode: 'push', limit: BATCH, leaseSeconds: deps.config.DELIVERY_LEASE_SECONDS, claimedBy: `dispatcher:${process.pid}` });
    if (batch.length === 0) {
      // Retries scheduled during this run fall due later: wait for a near one here, schedule a wake-up for a far one.
      const due = await nextPushDue(deps.db);
      const inMs = due ? new Date(due).getTime() - Date.now() : null;
      if (inMs !== null && inMs <= NEAR_MS) {
        await new Promise((r) => setTimeout(r, Math.max(0, inMs) + 5));
        continue;
      }
      if (inMs !== null) await wakeDispatcher(deps, inMs);
      return { delivered };
    }
    // One query each for the batch's subscriptions and events, not two per delivery.
    const [subs, events] = await Promise.all([
      subscriptionsByIds(deps.db, [...new Set(batch.map((d) => d.subscription_id))]),
      eventsByIds(deps.db, [...new Set(batch.map((d) => d.event_id))]),
    ]);
    const subById = new Map<string, SubscriptionRow>(subs.map((s: SubscriptionRow) => [s.id, s]));
    const eventById = new Map<string, EventRow>(events.map((e: EventRow) => [e.id, e]));
    const results = await Promise.allSettled(batch.map((d) => deliverOne(deps, d, subById.get(d.subscription_id), eventById.get(d.event_id))));
    for (const r of results) if (r.status === 'rejected') deps.log.warn({ err: (r.reason as Error).message }, 'delivery settle failed; the lease will expire and be swept');
    delivered += batch.length;
  }
}
