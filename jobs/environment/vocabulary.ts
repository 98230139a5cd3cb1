import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about environment; test/unit/router.test.ts checks it on requests that are not in these
 * examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(dev(elopment)? environment|runtimes?|setup steps|docker compose)\b/i,
  precedence: 70,
  examples: [
    'set up the development environment for this repo',
    'which runtimes and services does this project need',
    'detect the node version and database from the config files',
    'configure my local environment from the docker compose file',
    'what secrets does this app need to run',
    'generate setup steps for a new developer',
  ],
};
