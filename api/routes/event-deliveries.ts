import { completeAttempt, failAttempt, wakeDispatcher } from '../../jobs/events/ledger.js';
import { claimDeliveries, deliveryStats, deliveryView, FINISHED, insertChild, lockDelivery, lockLeased, sweepExpiredLeases, type DeliveryRow } from '../../shared/db/deliveries.js';
import { getSubscription } from '../../shared/db/subscriptions.js';
import { page } from '../../shared/db/page.js';
import { conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { PageQuery } from '../../shared/schemas/common.js';
import { ClaimBatchRequest, ClaimRequest, CompleteRequest, DeliveryCreate, DeliveryListQuery, DeliveryUpdate, FailRequest, LeaseRenew, LeaseToken } from '../../shared/schemas/events.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });
const one = (d: DeliveryRow) => ({ ok: true, delivery: deliveryView(d) });
const claimed = (d: DeliveryRow) => ({ ...deliveryView(d), leaseToken: d.lease_token });

export const routes = [
  r.post('/v1/event-deliveries', 'Create a delivery attempt for an event and subscription (the root attempt; 409 if one exists)', {
    body: DeliveryCreate,
    handler: async ({ body, principal }, deps) => {
      const accountId = principal!.accountId;
      const event = await deps.db('events').where({ id: body.eventId, account_id: accountId }).first();
      if (!event) throw notFound(`Event ${body.eventId}`);
      const sub = await getSubscription(deps.db, accountId, body.subscriptionId);
      if (!sub) throw notFound(`Subscription ${body.subscriptionId}`);
      const id = newId('dlv');
      const [row] = await deps.db('deliveries').insert({ id, account_id: accountId, event_id: event.id, subscription_id: body.subscriptionId, root_id: id, mode: sub.mode }).onConflict().ignore().returning('*');
      if (!row) throw conflict('This event already has a delivery chain for this subscription; use retry on its last attempt');
      await wakeDispatcher(deps);
      return new Reply(201, one(row));
    },
  }),
  r.get('/v1/event-deliveries', 'List delivery attempts (filters: status, subscriptionId, eventId)', {
    query: DeliveryListQuery,
    handler: async ({ query, principal }, deps) => {
      const q = deps.db('deliveries').where({ account_id: principal!.accountId });
      if (query.status) q.andWhere({ status: query.status });
      if (query.subscriptionId) q.andWhere({ subscription_id: query.subscriptionId });
      if (query.eventId) q.andWhere({ event_id: query.eventId });
      const { rows, nextCursor } = await page<DeliveryRow>(q, query.limit ?? 50, query.cursor);
      return { ok: true, deliveries: rows.map(deliveryView), nextCursor };
    },
  }),
  r.get('/v1/event-deliveries/stats', 'Queue health: counts by status, oldest queued age, 24 h failure rate', {
    handler: async ({ principal }, deps) => ({ ok: true, stats: await deliveryStats(deps.db, principal!.accountId) }),
  }),
  r.get('/v1/event-deliveries/ready', 'Claimable attempts (queued and due), without claiming them', {
    query: PageQuery,
    handler: async ({ query, principal }, deps) => {
      const rows = await deps.db('deliveries').where({ account_id: principal!.accountId, status: 'queued' }).andWhere('next_attempt_at', '<=', deps.db.fn.now()).orderBy('next_attempt_at').limit(query.limit ?? 50);
      return { ok: true, deliveries: rows.map(deliveryView) };
    },
  }),
  r.get('/v1/event-deliveries/{deliveryId}', 'Fetch a delivery attempt', {
    handler: async ({ params, principal }, deps) => {
      const row = await deps.db('deliveries').where({ id: params.deliveryId, account_id: principal!.accountId }).first();
      if (!row) throw notFound(`Delivery ${params.deliveryId}`);
      return one(row);
    },
  }),
  r.get('/v1/event-deliveries/{deliveryId}/chain', 'Retry lineage: every attempt of the chain, oldest first', {
    handler: async ({ params, principal }, deps) => {
      const row = await deps.db('deliveries').where({ id: params.deliveryId, account_id: principal!.accountId }).first();
      if (!row) throw notFound(`Delivery ${params.deliveryId}`);
      const chain = await deps.db('deliveries').where({ root_id: row.root_id }).orderBy('attempt');
      return { ok: true, rootId: row.root_id, chain: chain.map(deliveryView) };
    },
  }),
  r.post('/v1/event-deliveries/claim', 'Claim the next due attempt of a pull subscription under a lease (delivery null when none is due)', {
    body: ClaimRequest,
    handler: async ({ body, principal }, deps) => {
      const [row] = await claimDeliveries(deps.db, { accountId: principal!.accountId, mode: 'pull', limit: 1, leaseSeconds: body.leaseSeconds, claimedBy: body.workerId ?? `token:${principal!.tokenId}` });
      return { ok: true, delivery: row ? claimed(row) : null };
    },
  }),
  r.post('/v1/event-deliveries/claimBatch', 'Claim up to `limit` due attempts of pull subscriptions, each under its own lease', {
    body: ClaimBatchRequest,
    handler: async ({ body, principal }, deps) => {
      const rows = await claimDeliveries(deps.db, { accountId: principal!.accountId, mode: 'pull', limit: body.limit, leaseSeconds: body.leaseSeconds, claimedBy: body.workerId ?? `token:${principal!.tokenId}` });
      return { ok: true, deliveries: rows.map(claimed) };
    },
  }),
  r.post('/v1/event-deliveries/sweep', 'Return expired leases to queued', {
    handler: async ({ principal }, deps) => ({ ok: true, returned: await sweepExpiredLeases(deps.db, principal!.accountId) }),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/retry', 'Retry a failed or canceled attempt: a new child attempt, due now', {
    handler: async ({ params, principal }, deps) => {
      const child = await deps.db.transaction(async (trx) => {
        const row = await lockDelivery(trx, principal!.accountId, params.deliveryId!);
        if (!['failed', 'canceled'].includes(row.status)) throw conflict(`Only failed or canceled attempts can be retried; this one is ${row.status}`);
        if (await trx('deliveries').where({ parent_id: row.id }).first()) throw conflict('This attempt already has a retry; retry the last attempt of the chain');
        return insertChild(trx, row, 0);
      });
      await wakeDispatcher(deps);
      return new Reply(201, one(child));
    },
  }),
  r.post('/v1/event-deliveries/{deliveryId}/fail', 'Fail a claimed attempt (lease token required) and optionally schedule the next one', {
    body: FailRequest,
    handler: async ({ params, body, principal }, deps) => {
      const { delivery, next } = await failAttempt(deps, principal!.accountId, params.deliveryId!, body.leaseToken, {
        error: body.error ?? 'failed by the claimer', responseStatus: body.responseStatus ?? null, retry: body.retry, retryAfterMs: body.retryAfterSeconds !== undefined ? body.retryAfterSeconds * 1000 : null,
      });
      return { ok: true, delivery: deliveryView(delivery), next: next ? deliveryView(next) : null };
    },
  }),
  r.post('/v1/event-deliveries/{deliveryId}/complete', 'Complete a claimed attempt (lease token required)', {
    body: CompleteRequest,
    handler: async ({ params, body, principal }, deps) => one(await completeAttempt(deps, principal!.accountId, params.deliveryId!, body.leaseToken, { responseStatus: body.responseStatus ?? null, responseExcerpt: body.responseExcerpt ?? null })),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/cancel', 'Cancel a queued or claimed attempt', {
    handler: async ({ params, principal }, deps) => one(await deps.db.transaction(async (trx) => {
      const row = await lockDelivery(trx, principal!.accountId, params.deliveryId!);
      if (FINISHED.includes(row.status)) throw conflict(`Delivery ${row.id} is already ${row.status}`);
      const [done] = await trx('deliveries').where({ id: row.id }).update({ status: 'canceled', lease_token: null, lease_expires_at: null, finished_at: trx.fn.now(), updated_at: trx.fn.now() }).returning('*');
      return done;
    })),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/lease', 'Renew the lease of a claimed attempt', {
    body: LeaseRenew,
    handler: async ({ params, body, principal }, deps) => one(await deps.db.transaction(async (trx) => {
      const row = await lockLeased(trx, principal!.accountId, params.deliveryId!, body.leaseToken);
      const [renewed] = await trx('deliveries').where({ id: row.id }).update({ lease_expires_at: trx.raw('now() + make_interval(secs => ?)', [body.leaseSeconds]), updated_at: trx.fn.now() }).returning('*');
      return renewed;
    })),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/release', 'Release a claimed attempt back to queued', {
    body: LeaseToken,
    handler: async ({ params, body, principal }, deps) => one(await deps.db.transaction(async (trx) => {
      const row = await lockLeased(trx, principal!.accountId, params.deliveryId!, body.leaseToken);
      const [released] = await trx('deliveries').where({ id: row.id }).update({ status: 'queued', lease_token: null, lease_expires_at: null, claimed_by: null, updated_at: trx.fn.now() }).returning('*');
      return released;
    })),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/update', 'Update an unfinished attempt: reschedule it or set metadata', {
    body: DeliveryUpdate,
    handler: async ({ params, body, principal }, deps) => one(await deps.db.transaction(async (trx) => {
      const row = await lockDelivery(trx, principal!.accountId, params.deliveryId!);
      if (FINISHED.includes(row.status)) throw conflict(`Delivery ${row.id} is ${row.status}; finished attempts cannot change`);
      const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (body.nextAttemptAt) {
        if (row.status !== 'queued') throw conflict('Only a queued attempt can be rescheduled');
        patch.next_attempt_at = body.nextAttemptAt;
      }
      if (body.metadata) patch.metadata = JSON.stringify({ ...row.metadata, ...body.metadata });
      const [updated] = await trx('deliveries').where({ id: row.id }).update(patch).returning('*');
      return updated;
    })),
  }),
];
