import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about resolve; test/unit/router.test.ts checks it on requests that are not in these examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(scam|fraud|contradict\w*|audit|verify|fact.?check|dispute|legit\w*|misleading)\b/i,
  precedence: 80,
  examples: [
    'audit this invoice for hidden fees',
    'check whether these two contracts contradict each other',
    'is this email from my bank a scam',
    'verify the claims in this vendor brochure',
    'map the evidence for and against this refund dispute',
    'find contradictions between the quote and the final bill',
    'review this landlord message, it looks like fraud',
    'fact check the supplier certification',
    'open a case for the disputed charge',
    'assess whether this crypto investment offer is legitimate',
    'compare the warranty terms with what the seller promised',
    'does this listing have misleading information',
  ],
};
