import { randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';

/**
 * Sortable, prefixed identifiers (`run_0192f...`). The prefix says what an ID
 * names, so a wrong ID in the wrong place is visible in logs; UUIDv7 keeps
 * them time-ordered for cursor pagination and index locality.
 */
export function newId(prefix: string): string {
  return `${prefix}_${uuidv7().replace(/-/g, '')}`;
}

/** URL-safe random secret material (tokens, activation codes, webhook secrets). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
