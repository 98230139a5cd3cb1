import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import {
  MandateCreate,
  MandateRevoke,
  ReceiptReply,
  RefundReply,
  SettleReply,
  SettleRequest,
} from './mandate-schemas.js';
import { ProviderWebhookReply, RefundCreate, StripeEventBody } from './provider-schemas.js';
import { receiptWithRefunds, requestRefund } from './refunds.js';
import { receiveStripeWebhook } from './webhooks.js';
import { ProofPackCreate, ProofPackReply, ProofPackVerification, ProofPackVerify } from './pack-schemas.js';
import { issuerRoutes } from './issuer-routes.js';
import { createMandate, fetchMandate, findMandates, revokeMandateByClient } from './mandates-service.js';
import { createPack, fetchPack, packView, verifyPack } from './packs-service.js';
import { MandateDetailReply, MandateListQuery, MandatePage, MandateReply } from './schemas.js';
import { settle, taskEvidence } from './settle.js';
import { mandateView, receiptDetailView, receiptView, refundView, settledReceiptView } from './views.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['pay:read'], write: ['pay:write'] };
const r = routeGroup('pay', scopes);
const mandates = routeGroup('mandates', scopes);
// Proof packs are audit records: any token that reads audit records may seal and check them.
const audit = routeGroup('audit', { read: ['audit:read'], write: ['audit:read'] });

export const routes = [
  mandates.post('/v1/pay/mandates', 'Create a payment mandate; pay does not execute without one', {
    description:
      'Signed by a registered issuer (POST /v1/pay/issuers; the caller needs pay:write), or issued as an ' +
      'approval: then the caller needs approvals:write and must not be the submitter of a run of the task ' +
      'waiting for it (409 selfApproval) unless the approval policy allows `mandate`. A signature of an ' +
      'unregistered issuer is 422 `unknownIssuer`; one no registered key verifies is 422 ' +
      '`badIssuerSignature`.',
    // Which scope depends on the body (signed or not): createMandate decides.
    scopes: [],
    body: MandateCreate,
    response: { 201: MandateReply },
    mcpTool: 'pay.createMandate',
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, ...mandateView(await createMandate(deps, principal, body)) }),
  }),
  mandates.get('/v1/pay/mandates', 'List mandates (by task and status)', {
    query: MandateListQuery,
    response: { 200: MandatePage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findMandates(deps, principal, query);
      return { ok: true, mandates: rows.map(mandateView), nextCursor };
    },
  }),
  mandates.get('/v1/pay/mandates/{mandateId}', 'Fetch a mandate with its remaining budget and settlements', {
    response: { 200: MandateDetailReply },
    handler: async ({ params, principal }, deps) => {
      const { mandate, settlements, settlementCount } = await fetchMandate(deps, principal, params.mandateId);
      return { ok: true, ...mandateView(mandate), settlementCount, settlements: settlements.map(receiptView) };
    },
  }),
  mandates.post('/v1/pay/mandates/{mandateId}/revoke', 'Revoke a mandate: it settles nothing afterwards', {
    body: MandateRevoke,
    response: { 200: MandateReply },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      ...mandateView(await revokeMandateByClient(deps, principal, params.mandateId, body.reason)),
    }),
  }),
  ...issuerRoutes,
  r.post('/v1/pay/settle', 'Settle against a mandate', {
    body: SettleRequest,
    response: { 201: SettleReply },
    countsAsWorkflow: true,
    mcpTool: 'pay.settle',
    handler: async ({ body, principal }, deps) => {
      const { receipt, mandate } = await settle(deps, principal.accountId, {
        mandateId: body.mandateId,
        taskId: body.taskId,
        vendorId: body.vendorId,
        amount: body.amount,
        currency: body.currency ?? 'USD',
        povRef: body.povRef ?? null,
        evidence: taskEvidence(principal.accountId, body.taskId),
      });
      return new Reply(201, {
        ok: true,
        receipt: settledReceiptView(receipt),
        remaining: mandateView(mandate).remaining,
      });
    },
  }),
  r.get('/v1/pay/receipts/{receiptId}', 'Fetch a receipt with its provider state and refunds', {
    response: { 200: ReceiptReply },
    scopes: ['audit:read'],
    handler: async ({ params, principal }, deps) => {
      const { receipt, refunds } = await receiptWithRefunds(deps, principal, params.receiptId);
      return { ok: true, receipt: receiptDetailView(receipt, refunds) };
    },
  }),
  r.post('/v1/pay/refunds', 'Refund a settled receipt, in part or in full', {
    description:
      'At most what the receipt paid minus earlier refunds that did not fail (422 overRefund); only a settled ' +
      'receipt (409 otherwise). The internal ledger refunds at once; a Stripe payment is refunded at Stripe ' +
      "after commit (the refund id is Stripe's Idempotency-Key) and the refund stays pending until Stripe says.",
    body: RefundCreate,
    response: { 201: RefundReply },
    handler: async ({ body, principal }, deps) => {
      const { refund, receipt } = await requestRefund(deps, principal, body);
      return new Reply(201, { ok: true, refund: refundView(refund), receipt: receiptView(receipt) });
    },
  }),
  r.post('/v1/pay/webhooks/stripe/{connectorId}', "Stripe's webhooks for a Stripe connector (signed, no token)", {
    description:
      "connectorId is the connector's key, as a Stripe-backed mandate's providerBacking.webhookPath shows it. No " +
      "bearer token: the Stripe-Signature header over the raw body, made with the connector's whsec_ secret, is " +
      'the authentication (401 unsigned, forged, or outside the 300 s tolerance). Each event lands once ' +
      '(duplicate: true for a redelivery). payment_intent.* events settle or fail pending receipts; refund.*, ' +
      'charge.refund.* and charge.refunded move refunds.',
    auth: 'public',
    scopes: [],
    body: StripeEventBody,
    response: { 200: ProviderWebhookReply },
    handler: async ({ params, rawBody, headers }, deps) => ({
      ok: true,
      ...(await receiveStripeWebhook(deps, params.connectorId, rawBody, headers)),
    }),
  }),
  audit.post('/v1/audit/proofPacks', 'Seal a proof pack of a run that rests', {
    body: ProofPackCreate,
    response: { 201: ProofPackReply },
    mcpTool: 'audit.createProofPack',
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, pack: packView(await createPack(deps, principal, body.runId), deps.config) }),
  }),
  audit.get('/v1/audit/proofPacks/{packId}', 'Fetch a sealed proof pack', {
    response: { 200: ProofPackReply },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      pack: packView(await fetchPack(deps, principal, params.packId), deps.config),
    }),
  }),
  audit.post(
    '/v1/audit/proofPacks/verify',
    'Check a pack as submitted: every hash recomputed from its content, and the signature',
    {
      body: ProofPackVerify,
      response: { 200: ProofPackVerification },
      mcpTool: 'audit.verifyProofPack',
      handler: async ({ body }, deps) => ({ ok: true, ...(await verifyPack(deps, body.pack)) }),
    },
  ),
];
