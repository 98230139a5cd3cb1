import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about kubernetes; test/unit/router.test.ts checks it on requests that are not in these
 * examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(pods?|kubernetes|k8s|crashloop\w*|oomkilled|namespace)\b/i,
  precedence: 10,
  examples: [
    'my pods are in crashloopbackoff',
    'fix the kubernetes deployment that keeps restarting',
    'why is the pod stuck in pending',
    'diagnose oomkilled containers in the cluster',
    'the k8s service has no endpoints',
    'repair the image pull errors in namespace staging',
  ],
};
