import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about delivery; test/unit/router.test.ts checks it on requests that are not in these examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(deploy|deliver|ship|push .* live)\b/i,
  precedence: 60,
  examples: [
    'deliver version 1.4 of the web service to staging',
    'ship the new build to prod',
    'deploy the release end to end and monitor it',
    'roll out the update to staging and repair if it fails',
    'run the full delivery for the billing service',
    'push this version live',
  ],
};
