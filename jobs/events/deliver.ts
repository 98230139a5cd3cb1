import type { Job } from 'bullmq';
import { isTransientInfraError } from '../../shared/transient.js';
import type { Deps } from '../../shared/deps.js';
import { claimDeliveries, nextPushDue, type DeliveryRow } from '../../shared/db/deliveries.js';
import { iso } from '../../shared/db/knex.js';
import { eventsByIds, type EventRow as OutboxEvent } from '../../shared/db/outbox.js';
import { subscriptionsByIds, type SubscriptionRow } from './subscriptions-repository.js';
import { egressFailureReason, egressFetch } from '../../shared/http/egress.js';
import { openStored } from '../../shared/vault/index.js';
import { completeAttempt, failAttempt, handBack } from './ledger.js';
import { retryAfterMs, signingSecrets, verdictFor, webhookHeaders } from './logic.js';
import { wakeDispatcher } from './wake.js';
import { webhookDeliveries } from '../metrics.js';

const BATCH = 20;
const EXCERPT = 1000;
const NEAR_MS = 1500;
/** Room kept between a POST's time limit and the end of its lease, for settling it. */
const SETTLE_MARGIN_MS = 5000;

/**
 * The body every receiver gets: Standard Webhooks' `type`, `timestamp`, `data`, plus the event id, subject and who
 * wrote it (service or client).
 */
export function webhookBody(event: EventRow): string {
  return JSON.stringify({
    type: event.type,
    timestamp: iso(event.created_at),
    data: event.payload,
    eventId: event.id,
    subject: event.subject,
    source: event.source,
  });
}

type EventRow = Pick<OutboxEvent, 'id' | 'type' | 'source' | 'subject' | 'payload' | 'created_at'>;
type Outcome = { status: number | null; excerpt: string | null; error: string | null; retryAfter?: string };

async function post(deps: Deps, d: DeliveryRow, sub: SubscriptionRow, event: EventRow): Promise<Outcome> {
  const body = webhookBody(event);
  // Secrets are stored sealed (shared/vault): opened here, for the signature only.
  const opened = {
    ...sub,
    secret: (await openStored(deps, sub.secret))!,
    previous_secret: await openStored(deps, sub.previous_secret),
  };
  const headers = webhookHeaders(signingSecrets(opened), d.root_id, Math.floor(Date.now() / 1000), body);
  try {
    const res = await egressFetch(deps.config.AWP_ALLOW_PRIVATE_EGRESS, sub.endpoint, {
      method: 'POST',
      headers,
      body,
      timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
      maxBytes: EXCERPT,
      propagateTrace: true, // receivers get a `traceparent` (docs/api/events-and-webhooks.md)
    });
    return {
      status: res.status,
      excerpt: res.text.slice(0, EXCERPT),
      error: null,
      retryAfter: res.headers['retry-after'],
    };
  } catch (err) {
    return { status: null, excerpt: null, error: egressFailureReason(err) };
  }
}

/** Records what a POST got, with the attempt's lease token: completed, or failed with the next attempt scheduled. */
async function settle(deps: Deps, d: DeliveryRow, o: Outcome): Promise<string> {
  const verdict = verdictFor(o.status);
  if (verdict === 'completed') {
    await completeAttempt(deps, null, d.id, d.lease_token!, { responseStatus: o.status, responseExcerpt: o.excerpt });
  } else {
    await failAttempt(deps, null, d.id, d.lease_token!, {
      error: o.error ?? `endpoint answered ${o.status}`,
      responseStatus: o.status,
      responseExcerpt: o.excerpt,
      retry: true,
      retryAfterMs: o.status === 429 ? retryAfterMs(o.retryAfter) : null,
      gone: verdict === 'disable',
    });
  }
  return verdict;
}

/**
 * Delivers one claimed attempt. Resolves once the POST is answered, with the
 * settling (a database write) still under way in `settled`, so the next
 * attempt of the same subscription can go out without waiting for it.
 */
async function start(
  deps: Deps,
  d: DeliveryRow,
  sub: SubscriptionRow | undefined,
  event: EventRow | undefined,
): Promise<{ settled: Promise<string> }> {
  if (!sub || !event || sub.status === 'disabled') {
    return {
      settled: counted(
        failAttempt(deps, null, d.id, d.lease_token!, { error: 'subscription disabled or removed', retry: false }).then(
          () => 'dropped',
        ),
      ),
    };
  }
  if (sub.status === 'paused') {
    // Paused after the claim: hand it back held, without counting a failure; the resume releases it.
    return { settled: counted(handBack(deps, d.id, d.lease_token!, { held: true }).then(() => 'paused')) };
  }
  return { settled: counted(settleDurably(deps, d, await post(deps, d, sub, event))) };
}

/**
 * Settles an answered POST, riding out a Postgres outage while the attempt's lease lasts: the receiver has the event,
 * and a settlement lost to a restart would have the next claim send it again (the soak saw receivers get an event
 * twice across a Postgres restart). Past the lease another dispatcher may hold the attempt, so the write is left to
 * its lease check, and the error goes up.
 */
async function settleDurably(deps: Deps, d: DeliveryRow, o: Outcome): Promise<string> {
  const leaseEnds = d.lease_expires_at ? new Date(d.lease_expires_at).getTime() : 0;
  for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await settle(deps, d, o);
    } catch (err) {
      if (!isTransientInfraError(err) || Date.now() + wait >= leaseEnds) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Delivers one claimed attempt and settles it with its lease token; resolves with the verdict. */
export async function deliverAttempt(
  deps: Deps,
  d: DeliveryRow,
  sub: SubscriptionRow | undefined,
  event: EventRow | undefined,
): Promise<string> {
  return (await start(deps, d, sub, event)).settled;
}

/** Counts the attempt's verdict once it is settled. */
const counted = (settled: Promise<string>) =>
  settled.then((verdict) => {
    webhookDeliveries.inc({ verdict });
    return verdict;
  });

/**
 * Claim order (due time), then event id (time-ordered) for attempts due at the same instant, such as events of one
 * transaction.
 */
function raisedOrder(a: DeliveryRow, b: DeliveryRow): number {
  return (
    new Date(a.next_attempt_at).getTime() - new Date(b.next_attempt_at).getTime() ||
    (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0)
  );
}

/**
 * One subscription's attempts of a batch: one POST at a time, in the order
 * their events were raised (so a resumed subscription gets its held events
 * in order, and a backlog never hits a receiver with a burst), each settled
 * in the background while the next goes out. An attempt whose POST could
 * outlast its lease (a slow receiver ahead of it) is handed back untouched,
 * first in line for the next claim, rather than sent after another
 * dispatcher may have claimed it again.
 */
async function deliverInOrder(
  deps: Deps,
  attempts: DeliveryRow[],
  sub: SubscriptionRow | undefined,
  eventById: Map<string, EventRow>,
  leaseEndsAt: number,
): Promise<PromiseSettledResult<string>[]> {
  const settling: Promise<string>[] = [];
  for (const [i, d] of attempts.entries()) {
    if (i > 0 && Date.now() + deps.config.WEBHOOK_TIMEOUT_MS + SETTLE_MARGIN_MS > leaseEndsAt) {
      settling.push(handBack(deps, d.id, d.lease_token!, { held: false }).then(() => 'handedBack'));
      continue;
    }
    const started = start(deps, d, sub, eventById.get(d.event_id));
    settling.push(started.then((s) => s.settled));
    await started.catch(() => undefined); // the POST is answered; its settling goes on beside the next one
  }
  return Promise.allSettled(settling);
}

/**
 * The `webhooks` queue processor: claims due attempts in batches (SKIP
 * LOCKED, so any number of dispatchers cooperate) and delivers them until
 * none are due, subscriptions in parallel and each subscription's attempts
 * in order. Postgres is the queue of record; the job is only a wake-up.
 */
export async function dispatchDue(_job: Job | null, deps: Deps): Promise<{ delivered: number }> {
  let delivered = 0;
  for (;;) {
    // Measured on this process's clock, before the claim, so the lease surely lasts at least this long.
    const leaseEndsAt = Date.now() + deps.config.DELIVERY_LEASE_SECONDS * 1000;
    const batch = await claimDeliveries(deps.db, {
      accountId: null,
      mode: 'push',
      limit: BATCH,
      leaseSeconds: deps.config.DELIVERY_LEASE_SECONDS,
      claimedBy: `dispatcher:${process.pid}`,
    });
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
    const bySubscription = new Map<string, DeliveryRow[]>();
    for (const d of [...batch].sort(raisedOrder))
      bySubscription.set(d.subscription_id, [...(bySubscription.get(d.subscription_id) ?? []), d]);
    const results = (
      await Promise.all(
        [...bySubscription].map(([id, attempts]) =>
          deliverInOrder(deps, attempts, subById.get(id), eventById, leaseEndsAt),
        ),
      )
    ).flat();
    for (const r of results)
      if (r.status === 'rejected')
        deps.log.warn(
          { err: (r.reason as Error).message },
          'delivery settle failed; the lease will expire and be swept',
        );
    delivered += results.filter((r) => r.status === 'fulfilled' && r.value !== 'handedBack').length;
  }
}
