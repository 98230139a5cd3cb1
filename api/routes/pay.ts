import { MandateCreate, Receipt, SettleRequest } from '../../shared/schemas/proxy-pay.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('pay', { read: ['pay:read'], write: ['pay:write'], domain: 'pay' });

export const routes = [
  r.post('/v1/pay/mandates', 'Create a payment mandate; pay does not execute without one', { body: MandateCreate, tag: 'mandates' }),
  r.post('/v1/pay/settle', 'Settle against a mandate', { body: SettleRequest, countsAsWorkflow: true, mcpTool: 'pay.settle' }),
  r.get('/v1/pay/receipts/{receiptId}', 'Fetch a receipt', { response: { 200: Receipt }, scopes: ['audit:read'] }),
];
