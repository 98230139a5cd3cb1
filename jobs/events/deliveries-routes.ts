import {
  cancelDelivery,
  claimPull,
  completeByClient,
  createRootDelivery,
  deliveryChain,
  deliveryStats,
  dueDeliveries,
  failByClient,
  fetchDelivery,
  findDeliveries,
  releaseDelivery,
  renewLease,
  retryDelivery,
  sweepLeasesOf,
  updateDeliveryByClient,
} from './deliveries-service.js';
import { claimedView, deliveryView } from './views.js';
import type { DeliveryRow } from '../../shared/db/deliveries.js';
import { PageQuery } from '../../shared/schemas/common.js';
import {
  ClaimBatchRequest,
  ClaimRequest,
  CompleteRequest,
  DeliveryCreate,
  DeliveryListQuery,
  DeliveryUpdate,
  EventDeliveryAnswer,
  EventDeliveryChain,
  EventDeliveryClaimed,
  EventDeliveryFailed,
  EventDeliveryList,
  EventDeliveryPage,
  EventDeliveryStats,
  FailRequest,
  LeasesSwept,
  LeaseRenew,
  LeaseToken,
} from '../../shared/schemas/events.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });
const one = (d: DeliveryRow) => ({ ok: true, delivery: deliveryView(d) });

export const routes = [
  r.post(
    '/v1/event-deliveries',
    'Create a delivery attempt for an event and subscription (the root attempt; 409 if one exists)',
    {
      body: DeliveryCreate,
      response: { 201: EventDeliveryAnswer },
      handler: async ({ body, principal }, deps) =>
        new Reply(201, one(await createRootDelivery(deps, principal!, body))),
    },
  ),
  r.get('/v1/event-deliveries', 'List delivery attempts (filters: status, subscriptionId, eventId)', {
    query: DeliveryListQuery,
    response: { 200: EventDeliveryPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findDeliveries(deps, principal!, query);
      return { ok: true, deliveries: rows.map(deliveryView), nextCursor };
    },
  }),
  r.get('/v1/event-deliveries/stats', 'Queue health: counts by status, oldest queued age, 24 h failure rate', {
    response: { 200: EventDeliveryStats },
    handler: async ({ principal }, deps) => ({ ok: true, stats: await deliveryStats(deps, principal!) }),
  }),
  r.get('/v1/event-deliveries/ready', 'Claimable attempts (queued and due), without claiming them', {
    query: PageQuery,
    response: { 200: EventDeliveryList },
    handler: async ({ query, principal }, deps) => ({
      ok: true,
      deliveries: (await dueDeliveries(deps, principal!, query.limit ?? 50)).map(deliveryView),
    }),
  }),
  r.get('/v1/event-deliveries/{deliveryId}', 'Fetch a delivery attempt', {
    response: { 200: EventDeliveryAnswer },
    handler: async ({ params, principal }, deps) => one(await fetchDelivery(deps, principal!, params.deliveryId!)),
  }),
  r.get('/v1/event-deliveries/{deliveryId}/chain', 'Retry lineage: every attempt of the chain, oldest first', {
    response: { 200: EventDeliveryChain },
    handler: async ({ params, principal }, deps) => {
      const { rootId, chain } = await deliveryChain(deps, principal!, params.deliveryId!);
      return { ok: true, rootId, chain: chain.map(deliveryView) };
    },
  }),
  r.post(
    '/v1/event-deliveries/claim',
    'Claim the next due attempt of a pull subscription under a lease (delivery null when none is due)',
    {
      body: ClaimRequest,
      response: { 200: EventDeliveryClaimed },
      handler: async ({ body, principal }, deps) => {
        const [row] = await claimPull(deps, principal!, { ...body, limit: 1 });
        return { ok: true, delivery: row ? claimedView(row) : null };
      },
    },
  ),
  r.post(
    '/v1/event-deliveries/claimBatch',
    'Claim up to `limit` due attempts of pull subscriptions, each under its own lease',
    {
      body: ClaimBatchRequest,
      response: { 200: EventDeliveryList },
      handler: async ({ body, principal }, deps) => ({
        ok: true,
        deliveries: (await claimPull(deps, principal!, body)).map(claimedView),
      }),
    },
  ),
  r.post('/v1/event-deliveries/sweep', 'Return expired leases to queued', {
    response: { 200: LeasesSwept },
    handler: async ({ principal }, deps) => ({ ok: true, returned: await sweepLeasesOf(deps, principal!) }),
  }),
  r.post(
    '/v1/event-deliveries/{deliveryId}/retry',
    'Retry a failed or canceled attempt: a new child attempt, due now',
    {
      response: { 201: EventDeliveryAnswer },
      handler: async ({ params, principal }, deps) =>
        new Reply(201, one(await retryDelivery(deps, principal!, params.deliveryId!))),
    },
  ),
  r.post(
    '/v1/event-deliveries/{deliveryId}/fail',
    'Fail a claimed attempt (lease token required) and optionally schedule the next one',
    {
      body: FailRequest,
      response: { 200: EventDeliveryFailed },
      handler: async ({ params, body, principal }, deps) => {
        const { delivery, next } = await failByClient(deps, principal!, params.deliveryId!, body);
        return { ok: true, delivery: deliveryView(delivery), next: next ? deliveryView(next) : null };
      },
    },
  ),
  r.post('/v1/event-deliveries/{deliveryId}/complete', 'Complete a claimed attempt (lease token required)', {
    body: CompleteRequest,
    response: { 200: EventDeliveryAnswer },
    handler: async ({ params, body, principal }, deps) =>
      one(await completeByClient(deps, principal!, params.deliveryId!, body)),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/cancel', 'Cancel a queued or claimed attempt', {
    response: { 200: EventDeliveryAnswer },
    handler: async ({ params, principal }, deps) => one(await cancelDelivery(deps, principal!, params.deliveryId!)),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/lease', 'Renew the lease of a claimed attempt', {
    body: LeaseRenew,
    response: { 200: EventDeliveryAnswer },
    handler: async ({ params, body, principal }, deps) =>
      one(await renewLease(deps, principal!, params.deliveryId!, body)),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/release', 'Release a claimed attempt back to queued', {
    body: LeaseToken,
    response: { 200: EventDeliveryAnswer },
    handler: async ({ params, body, principal }, deps) =>
      one(await releaseDelivery(deps, principal!, params.deliveryId!, body.leaseToken)),
  }),
  r.post('/v1/event-deliveries/{deliveryId}/update', 'Update an unfinished attempt: reschedule it or set metadata', {
    body: DeliveryUpdate,
    response: { 200: EventDeliveryAnswer },
    handler: async ({ params, body, principal }, deps) =>
      one(await updateDeliveryByClient(deps, principal!, params.deliveryId!, body)),
  }),
];
