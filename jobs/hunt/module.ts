/**
 * The hunt module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/hunt/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { routes, scopes } from './routes.js';
import { fetchRates } from './rates.js';
import { huntStep } from './step.js';
import { templates } from './templates.js';
import { vocabulary } from './vocabulary.js';

/** Source-bound discovery: candidates from the sources it can read, each bound to where it came from. */
export const hunt = defineDomain({
  name: 'hunt',
  summary:
    "Source-bound discovery of candidates from the account's catalog and the web pages a request names; " +
    'page, image and place readers',
  scopes,
  routes,
  step: huntStep,
  vocabulary,
  resumeActions: {
    buy: {
      description: 'Buy the chosen candidate; the run continues into pay',
      continueInto: 'pay',
      choosesItem: true,
    },
    contact: {
      description: 'Contact the chosen candidate; the run continues into proxy',
      continueInto: 'proxy',
      choosesItem: true,
    },
  },
  redact: [
    'url',
    'finalUrl',
    'vendor',
    'price',
    'fees',
    'net',
    'netInBudgetCurrency',
    'itemId',
    'candidateId',
    'snapshotHash',
  ],
  templates,
  // The ECB publishes once a working day around 16:00 CET; a fetch every six hours keeps the day current.
  sweeps: { 'hunt.rates': { cron: '17 */6 * * *', run: fetchRates } },
});
