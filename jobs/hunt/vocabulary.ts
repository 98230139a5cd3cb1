import type { DomainVocabulary } from '../domain.js';

/** What the router learns about hunt; test/unit/router.test.ts checks it on requests that are not in these examples. */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(find|search|look for|discover|shortlist|compare prices|cheapest|best deal|source)\b/i,
  precedence: 120,
  examples: [
    'find me a used road bike under $400',
    'search for the cheapest flight to Lisbon next month',
    'look for a plumber near me who can come today',
    'discover suppliers of recycled packaging',
    'find leads for B2B accounting software in Berlin',
    'compare prices for a 27 inch 4k monitor',
    'where can I buy a standing desk below 300 dollars',
    'shortlist three coworking spaces downtown',
    'get me options for a birthday cake delivery',
    'scan marketplaces for a second hand iPhone 14',
    'hunt for vintage vinyl records of Miles Davis',
    'source candidates for a senior backend engineer role',
    'find a dentist that takes new patients',
    'which stores sell organic coffee beans in bulk',
    'best deal on noise cancelling headphones',
  ],
};
