import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about proxy; test/unit/router.test.ts checks it on requests that are not in these examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(call|phone|ring|human|person|courier|pick ?up)\b/i,
  precedence: 100,
  examples: [
    'call the restaurant and book a table for four',
    'have a human confirm the appointment by phone',
    'ask someone to verify my identity with the provider',
    'send a person to pick up the package',
    'get a human reviewer to check this decision',
    'phone the mechanic and ask if they are open on sunday',
    'message the landlord to arrange a viewing',
    'call them',
    'contact the seller and ask about availability',
    'arrange a courier for tomorrow morning',
  ],
};
