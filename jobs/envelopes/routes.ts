import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import { Ok, Page } from '../../shared/schemas/common.js';
import { EnvelopeCreate, EnvelopeListQuery, EnvelopeUpdate, EnvelopeView } from './schemas.js';
import { createEnvelope, fetchEnvelope, findEnvelopes, updateEnvelope } from './service.js';
import { envelopeView } from './view.js';

// Tagged `a2a` beside the transport's own routes: envelopes are A2A delegation records.
const r = routeGroup('a2a', { read: ['agents:read'], write: ['agents:write'] });
const EnvelopeOne = Ok({ envelope: EnvelopeView }, 'EnvelopeOne');
const EnvelopePage = Page('envelopes', EnvelopeView, 'EnvelopePage');

export const routes = [
  r.post('/v1/a2a/envelopes', 'Create a delegation envelope', {
    description:
      'Names its sender (a registered agent, or awp), its recipient (a registered agent), the run and/or task it ' +
      'belongs to, and its payload; it starts queued.',
    body: EnvelopeCreate,
    response: { 201: EnvelopeOne },
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, envelope: envelopeView(await createEnvelope(deps, principal, body)) }),
  }),
  r.get('/v1/a2a/envelopes', 'List envelopes (filters: status, recipient, runId, taskId, planId; cursor pagination)', {
    query: EnvelopeListQuery,
    response: { 200: EnvelopePage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findEnvelopes(deps, principal, query);
      return { ok: true, envelopes: rows.map(envelopeView), nextCursor };
    },
  }),
  r.get('/v1/a2a/envelopes/{msgId}', 'Fetch an envelope', {
    response: { 200: EnvelopeOne },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      envelope: envelopeView(await fetchEnvelope(deps, principal, params.msgId)),
    }),
  }),
  r.post('/v1/a2a/envelopes/{msgId}/update', 'Update delivery status', {
    description:
      'Moves the envelope along its status table (409 with the allowed moves otherwise); each move is kept in its ' +
      'history.',
    body: EnvelopeUpdate,
    response: { 200: EnvelopeOne },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      envelope: envelopeView(await updateEnvelope(deps, principal, params.msgId, body)),
    }),
  }),
];
