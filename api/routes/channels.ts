import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../shared/schemas/common.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('channels', { read: ['channels:read'], write: ['channels:write'] });
const TouchpointQuery = Type.Composite([
  PageQuery,
  Type.Object({
    threadId: Type.Optional(Type.String()), caseId: Type.Optional(Type.String()), conversationId: Type.Optional(Type.String()),
    providerId: Type.Optional(Type.String()), status: Type.Optional(Type.String()),
  }),
]);

export const routes = [
  r.post('/v1/channels/threads', 'Create or upsert a thread'),
  r.get('/v1/channels/threads', 'List threads', { list: true }),
  r.get('/v1/channels/threads/{threadId}', 'Fetch a thread'),
  r.get('/v1/channels/threads/{threadId}/timeline', 'Unified timeline of a thread'),
  r.post('/v1/channels/touchpoints', 'Record an inbound, outbound or internal touchpoint'),
  r.get('/v1/channels/touchpoints', 'List touchpoints by thread, case, conversation, provider or status', { query: TouchpointQuery }),
  r.get('/v1/channels/touchpoints/{touchpointId}', 'Fetch a touchpoint'),
  r.post('/v1/channels/callbacks', 'Ingest a provider callback and reconcile'),
  r.get('/v1/channels/callbacks', 'List normalized callbacks', { list: true }),
];
