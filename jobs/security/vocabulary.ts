import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about security; test/unit/router.test.ts checks it on requests that are not in these examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(secrets? scan|leaked|hardcoded|api key committed|exposed tokens?)\b/i,
  precedence: 40,
  examples: [
    'scan the repo for leaked secrets',
    'check these config files for security problems',
    'is there an api key committed in this code',
    'validate the security of our dockerfile',
    'find hardcoded passwords',
    'audit our env files for exposed tokens',
  ],
};
