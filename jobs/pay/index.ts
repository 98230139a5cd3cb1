import { routeGroup } from '../../shared/http/route-group.js';
import { MandateCreate, Receipt, SettleRequest } from '../../shared/schemas/proxy-pay.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['pay:read'], write: ['pay:write'] };
const r = routeGroup('pay', scopes);
const audit = routeGroup('audit', { read: ['audit:read'], write: ['audit:read'] });

/** Payments under mandates: settlement never exceeds what was granted; receipts and sealed proof packs. */
export const pay = defineDomain({
  name: 'pay',
  summary: 'Mandates, settlement and receipts',
  pendingIssue: 13,
  scopes,
  vocabulary,
  routes: [
    r.post('/v1/pay/mandates', 'Create a payment mandate; pay does not execute without one', { body: MandateCreate, tag: 'mandates' }),
    r.post('/v1/pay/settle', 'Settle against a mandate', { body: SettleRequest, countsAsWorkflow: true, mcpTool: 'pay.settle' }),
    r.get('/v1/pay/receipts/{receiptId}', 'Fetch a receipt', { response: { 200: Receipt }, scopes: ['audit:read'] }),
    audit.get('/v1/audit/proofPacks/{packId}', 'Fetch a sealed proof pack'),
  ],
});
