import type { Static } from '@sinclair/typebox';
import {
  createSubscription,
  fetchSubscription,
  findSubscriptions,
  updateSubscriptionByClient,
} from './subscriptions-service.js';
import { subscriptionView } from './views.js';
import type { Deps } from '../../shared/deps.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { PageQuery } from '../../shared/schemas/common.js';
import {
  SubscriptionAnswer,
  SubscriptionCreate,
  SubscriptionCreated,
  SubscriptionPage,
  SubscriptionUpdate,
  SubscriptionUpdated,
} from '../../shared/schemas/events.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });

// Shared by both paths of the one subscription resource.
async function create(
  { body, principal }: { body: Static<typeof SubscriptionCreate>; principal: Principal | null },
  deps: Deps,
) {
  const { row, secret } = await createSubscription(deps, principal!, body);
  return new Reply(201, { ok: true, subscription: subscriptionView(row), secret });
}

async function list(
  { query, principal }: { query: { limit?: number; cursor?: string }; principal: Principal | null },
  deps: Deps,
) {
  const { rows, nextCursor } = await findSubscriptions(deps, principal!, query);
  return { ok: true, subscriptions: rows.map(subscriptionView), nextCursor };
}

export const routes = [
  r.post('/v1/events/subscriptions', 'Register a webhook subscription (same resource as /v1/event-subscriptions)', {
    body: SubscriptionCreate,
    response: { 201: SubscriptionCreated },
    returnsSecret: true,
    handler: create,
  }),
  r.get('/v1/events/subscriptions', 'Subscriptions of the current client', {
    query: PageQuery,
    response: { 200: SubscriptionPage },
    handler: list,
  }),
  r.post('/v1/event-subscriptions', 'Register a webhook subscription; the secret is returned once', {
    body: SubscriptionCreate,
    response: { 201: SubscriptionCreated },
    returnsSecret: true,
    handler: create,
  }),
  r.get('/v1/event-subscriptions', 'List subscriptions', {
    query: PageQuery,
    response: { 200: SubscriptionPage },
    handler: list,
  }),
  r.get('/v1/event-subscriptions/{subId}', 'Fetch a subscription (never its secret)', {
    response: { 200: SubscriptionAnswer },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      subscription: subscriptionView(await fetchSubscription(deps, principal!, params.subId!)),
    }),
  }),
  r.post(
    '/v1/event-subscriptions/{subId}/update',
    'Update status, events, endpoint, or rotate the secret (old secret valid 24 h)',
    {
      body: SubscriptionUpdate,
      response: { 200: SubscriptionUpdated },
      returnsSecret: true,
      handler: async ({ params, body, principal }, deps) => {
        const { row, secret } = await updateSubscriptionByClient(deps, principal!, params.subId!, body);
        return { ok: true, subscription: subscriptionView(row), ...(secret ? { secret } : {}) };
      },
    },
  ),
];
