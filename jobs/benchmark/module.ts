/**
 * The benchmark module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/benchmark/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { benchmarkStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/**
 * The bench's identical-work step: the peers' SHA-256 rounds run through the whole engine (HTTP, auth, run records,
 * proof card). Reached only by a `domainRoute` naming it.
 */
export const benchmark = defineDomain({
  name: 'benchmark',
  summary: "The peers' bench step (SHA-256 rounds) through the whole engine; reached only by domainRoute",
  // No routes of its own: its only entry is a run.
  scopes: { read: ['runs:read'], write: ['runs:write'] },
  routes: [],
  step: benchmarkStep,
  vocabulary,
  routable: false,
});
