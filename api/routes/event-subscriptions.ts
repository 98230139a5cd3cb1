import { newWebhookSecret } from '../../jobs/events/logic.js';
import type { Deps } from '../../shared/deps.js';
import { getSubscription, subscriptionView, type SubscriptionRow } from '../../shared/db/subscriptions.js';
import { page } from '../../shared/db/page.js';
import { notFound } from '../../shared/errors.js';
import { checkEgressUrl } from '../../shared/http/egress.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { PageQuery } from '../../shared/schemas/common.js';
import { SubscriptionCreate, SubscriptionUpdate } from '../../shared/schemas/events.js';
import type { Static } from '@sinclair/typebox';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });

function checkEndpoint(deps: Deps, endpoint: string): string {
  return checkEgressUrl(endpoint, { allowPrivate: deps.config.AWP_ALLOW_PRIVATE_EGRESS, requireHttps: deps.config.NODE_ENV === 'production' }).toString();
}

async function createSubscription({ body, principal }: { body: Static<typeof SubscriptionCreate>; principal: Principal | null }, deps: Deps) {
  const endpoint = checkEndpoint(deps, body.endpoint);
  const secret = body.secret ?? newWebhookSecret();
  const [row] = await deps.db('subscriptions').insert({ id: newId('sub'), account_id: principal!.accountId, endpoint, events: body.events, secret, description: body.description ?? null, mode: body.mode }).returning('*');
  return new Reply(201, { ok: true, subscription: subscriptionView(row), secret });
}

async function listSubscriptions({ query, principal }: { query: { limit?: number; cursor?: string }; principal: Principal | null }, deps: Deps) {
  const { rows, nextCursor } = await page<SubscriptionRow>(deps.db('subscriptions').where({ account_id: principal!.accountId }), query.limit ?? 50, query.cursor);
  return { ok: true, subscriptions: rows.map(subscriptionView), nextCursor };
}

const ROTATION_OVERLAP = "now() + interval '24 hours'";

export const routes = [
  r.post('/v1/events/subscriptions', 'Register a webhook subscription (same resource as /v1/event-subscriptions)', { body: SubscriptionCreate, handler: createSubscription }),
  r.get('/v1/events/subscriptions', 'Subscriptions of the current client', { query: PageQuery, handler: listSubscriptions }),
  r.post('/v1/event-subscriptions', 'Register a webhook subscription; the secret is returned once', { body: SubscriptionCreate, handler: createSubscription }),
  r.get('/v1/event-subscriptions', 'List subscriptions', { query: PageQuery, handler: listSubscriptions }),
  r.get('/v1/event-subscriptions/{subId}', 'Fetch a subscription (never its secret)', {
    handler: async ({ params, principal }, deps) => {
      const sub = await getSubscription(deps.db, principal!.accountId, params.subId!);
      if (!sub) throw notFound(`Subscription ${params.subId}`);
      return { ok: true, subscription: subscriptionView(sub) };
    },
  }),
  r.post('/v1/event-subscriptions/{subId}/update', 'Update status, events, endpoint, or rotate the secret (old secret valid 24 h)', {
    body: SubscriptionUpdate,
    handler: async ({ params, body, principal }, deps) => {
      const result = await deps.db.transaction(async (trx) => {
        const sub = await getSubscription(trx, principal!.accountId, params.subId!, true);
        if (!sub) throw notFound(`Subscription ${params.subId}`);
        const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
        if (body.status) Object.assign(patch, { status: body.status, disabled_reason: null, ...(body.status === 'active' ? { failing_since: null } : {}) });
        if (body.events) patch.events = body.events;
        if (body.endpoint) patch.endpoint = checkEndpoint(deps, body.endpoint);
        if (body.description !== undefined) patch.description = body.description;
        let secret: string | undefined;
        if (body.rotateSecret || body.secret) {
          secret = body.secret ?? newWebhookSecret();
          Object.assign(patch, { secret, previous_secret: sub.secret, previous_secret_expires_at: trx.raw(ROTATION_OVERLAP) });
        }
        const [row] = await trx('subscriptions').where({ id: sub.id }).update(patch).returning('*');
        return { row, secret };
      });
      return { ok: true, subscription: subscriptionView(result.row), ...(result.secret ? { secret: result.secret } : {}) };
    },
  }),
];
