import type { DomainVocabulary } from '../domain.js';

/**
 * Nothing: the router never picks `benchmark` (a lexicon that matches no text, no examples to train on, so its
 * classifier score is 0), and only a `domainRoute` naming it reaches it. A real request never costs hash rounds.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /(?!)/,
  examples: [],
};
