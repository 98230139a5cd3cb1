import { iso } from '../../shared/db/knex.js';
import type { TokenRow } from './repository.js';
import type { TokenView } from '../../shared/schemas/auth.js';

/** A token as the API shows it: never its secret or hash. */
export function tokenView(row: TokenRow): TokenView {
  return {
    tokenId: row.id,
    memberId: row.member_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    transports: row.transports,
    status: row.status,
    createdAt: iso(row.created_at)!,
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  };
}
