import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about migration; test/unit/router.test.ts checks it on requests that are not in these
 * examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(migrations?|alter table|schema change|drop column)\b/i,
  precedence: 30,
  examples: [
    'validate these database migrations before we run them',
    'is this sql migration safe to apply',
    'check the alter table for locking problems',
    'review the schema change for data loss',
    'will dropping this column break anything',
    'order these migrations and check the backup',
  ],
};
