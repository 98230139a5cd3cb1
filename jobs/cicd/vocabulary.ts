import type { DomainVocabulary } from '../domain.js';

/** What the router learns about cicd; test/unit/router.test.ts checks it on requests that are not in these examples. */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(rollout|release plan|canary|blue.?green|rollback|pipeline|gates?)\b/i,
  precedence: 50,
  examples: [
    'plan the release of version 2.3 to production',
    'create a canary rollout plan for the payments service',
    'check the deployment gates before shipping',
    'what is the rollback plan for this release',
    'build a blue green pipeline for the api',
    'are the ci checks green enough to deploy',
  ],
};
