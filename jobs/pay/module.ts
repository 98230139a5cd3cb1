/**
 * The pay module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/pay/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { sealFinishedRun } from './packs-service.js';
import { routes, scopes } from './routes.js';
import { PaySettledPayload } from './mandate-schemas.js';
import { payStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/** Payments under mandates: settlement never exceeds what was granted; receipts and sealed proof packs. */
export const pay = defineDomain({
  name: 'pay',
  summary: 'Mandates, settlement under them, receipts, and sealed proof packs',
  scopes,
  routes,
  step: payStep,
  vocabulary,
  resumeActions: {
    settle: { description: "Settle now, under the mandate of the run's task (or data.mandateId)" },
    decline: { description: 'Do not pay; the run ends without a receipt' },
  },
  events: {
    'pay.settled': {
      description: 'A settlement went through under a mandate: its receipt, mandate and amount',
      payload: PaySettledPayload,
    },
  },
  redact: ['vendorId', 'povRef', 'remaining', 'spent', 'purchase'],
  onRunFinished: sealFinishedRun,
});
