/**
 * The pay module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/pay/index.ts, its public face.
 */

import { Type } from '@sinclair/typebox';
import { defineDomain } from '../domain.js';
import { sealFinishedRun } from './packs-service.js';
import { routes, scopes } from './routes.js';
import { PaySettledPayload } from './mandate-schemas.js';
import { PAY_PROVIDER_QUEUE } from '../../shared/queues.js';
import { processPayProvider, sweepProviderWork } from './confirm.js';
import { PayFailedPayload, PayRefundedPayload } from './provider-schemas.js';
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
    settle: {
      description: "Settle now, under the mandate of the run's task (or data.mandateId)",
      input: Type.Object(
        {
          mandateId: Type.Optional(
            Type.String({ minLength: 1, maxLength: 200, description: 'The mandate to settle under' }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    decline: { description: 'Do not pay; the run ends without a receipt' },
  },
  events: {
    'pay.settled': {
      description:
        'A settlement went through under a mandate: its receipt, mandate and amount (for a Stripe payment: when ' +
        'Stripe said the PaymentIntent succeeded)',
      payload: PaySettledPayload,
    },
    'pay.failed': {
      description: 'Stripe did not take a pending payment: the receipt failed and its amount is back on the mandate',
      payload: PayFailedPayload,
    },
    'pay.refunded': {
      description: 'A refund of a receipt succeeded (the ledger at once, Stripe when it says so)',
      payload: PayRefundedPayload,
    },
  },
  // Stripe payments and refunds are asked for after commit on their own queue; the sweep puts back a lost job.
  queues: { [PAY_PROVIDER_QUEUE]: processPayProvider },
  sweeps: { 'pay.confirm': { cron: '* * * * *', run: sweepProviderWork } },
  redact: ['vendorId', 'povRef', 'remaining', 'spent', 'purchase'],
  onRunFinished: sealFinishedRun,
});
