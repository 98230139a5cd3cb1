import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about incident; test/unit/router.test.ts checks it on requests that are not in these examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(outage|incident|alerts?|on.?call|error rate|site is down)\b/i,
  precedence: 20,
  examples: [
    'we have an outage, latency alerts are firing',
    'respond to the production incident on checkout',
    'error rate spiked after the last deploy',
    'page the on call and build an incident timeline',
    'the site is down',
    'triage these alerts from prometheus',
  ],
};
