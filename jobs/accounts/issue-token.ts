import { insertToken, type TokenRow } from './repository.js';
import type { Db } from '../../shared/db/knex.js';
import { sha256 } from '../../shared/crypto.js';
import { newId, randomSecret } from '../../shared/ids.js';
import type { Transport } from '../../shared/schemas/auth.js';

/** Token values look like `awp_<43 url-safe chars>`; only their SHA-256 is stored. */
export const TOKEN_PREFIX = 'awp_';

export function hashToken(token: string): string {
  return sha256(token);
}

/** Creates a token for an account and returns the secret once, with its stored row. */
export async function issueToken(
  db: Db,
  accountId: string,
  opts: { name: string; scopes: string[]; transports?: Transport[]; rotatedFrom?: string; memberId?: string },
): Promise<{ token: string; row: TokenRow }> {
  const token = `${TOKEN_PREFIX}${randomSecret(32)}`;
  const row = await insertToken(db, {
    id: newId('tok'),
    account_id: accountId,
    ...(opts.memberId ? { member_id: opts.memberId } : {}),
    name: opts.name,
    prefix: token.slice(0, 10),
    token_hash: hashToken(token),
    scopes: opts.scopes,
    // Absent: the column's default, every transport.
    ...(opts.transports ? { transports: opts.transports } : {}),
    rotated_from: opts.rotatedFrom,
  });
  return { token, row };
}
