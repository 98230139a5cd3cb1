import type { DomainVocabulary } from '../domain.js';

/** What the router learns about pay; test/unit/router.test.ts checks it on requests that are not in these examples. */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(pay|payment|purchase|buy|checkout|settle|mandate|refund me)\b/i,
  precedence: 90,
  examples: [
    'pay for it',
    'buy the cheapest one',
    'settle the invoice with the vendor',
    'create a payment mandate with a 200 dollar limit',
    'purchase the selected item',
    'checkout and send me the receipt',
    'pay the plumber 120 dollars',
    'set a spending limit of 50 euros for this task',
    'transfer the deposit to the supplier',
    'order it and pay',
    'send my landlord the rent for march',
    'release the agreed payment to the freelancer',
  ],
};
