import { wakeDispatcher } from '../../jobs/events/ledger.js';
import { iso } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { notFound } from '../../shared/errors.js';
import { EventCreate, EventListQuery } from '../../shared/schemas/events.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });

const eventView = (e: any) => ({ eventId: e.id, type: e.type, source: e.source, subject: e.subject, payload: e.payload, createdAt: iso(e.created_at), acknowledged: Boolean(e.acked_at), ackedAt: iso(e.acked_at) });

async function loadEvent(db: import('knex').Knex, accountId: string, eventId: string) {
  const e = await db('events').where({ id: eventId, account_id: accountId }).first();
  if (!e) throw notFound(`Event ${eventId}`);
  return e;
}

export const routes = [
  r.post('/v1/events', 'Record an integration event; it fans out to matching subscriptions in the same transaction', {
    body: EventCreate,
    handler: async ({ body, principal }, deps) => {
      const { eventId, deliveries } = await deps.db.transaction((trx) => recordEvent(trx, { accountId: principal!.accountId, type: body.type, payload: body.payload, subject: body.subject, source: 'api' }));
      if (deliveries > 0) await wakeDispatcher(deps);
      return new Reply(201, { ok: true, event: eventView(await loadEvent(deps.db, principal!.accountId, eventId)), deliveries });
    },
  }),
  r.get('/v1/events', 'List outbox records (filters: type, since, until, acknowledged; cursor pagination)', {
    query: EventListQuery,
    handler: async ({ query, principal }, deps) => {
      const q = deps.db('events').where({ account_id: principal!.accountId });
      if (query.type) q.andWhere({ type: query.type });
      if (query.since) q.andWhere('created_at', '>=', query.since);
      if (query.until) q.andWhere('created_at', '<', query.until);
      if (query.acknowledged !== undefined) q.andWhere((b) => (query.acknowledged ? b.whereNotNull('acked_at') : b.whereNull('acked_at')));
      const { rows, nextCursor } = await page<{ id: string }>(q, query.limit ?? 50, query.cursor);
      return { ok: true, events: rows.map(eventView), nextCursor };
    },
  }),
  r.get('/v1/events/{eventId}', 'Fetch an event with its delivery attempts', {
    handler: async ({ params, principal }, deps) => {
      const e = await loadEvent(deps.db, principal!.accountId, params.eventId!);
      const deliveries = await deps.db('deliveries').where({ event_id: e.id }).orderBy([{ column: 'root_id' }, { column: 'attempt' }]).select('id', 'subscription_id', 'attempt', 'status');
      return { ok: true, event: eventView(e), deliveries: deliveries.map((d) => ({ deliveryId: d.id, subscriptionId: d.subscription_id, attempt: d.attempt, status: d.status })) };
    },
  }),
  r.post('/v1/events/{eventId}/ack', 'Acknowledge an event (idempotent: the first ack time is kept)', {
    handler: async ({ params, principal }, deps) => {
      await loadEvent(deps.db, principal!.accountId, params.eventId!);
      await deps.db('events').where({ id: params.eventId, account_id: principal!.accountId }).whereNull('acked_at').update({ acked_at: deps.db.fn.now() });
      return { ok: true, event: eventView(await loadEvent(deps.db, principal!.accountId, params.eventId!)) };
    },
  }),
];
