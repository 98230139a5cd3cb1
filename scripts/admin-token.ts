/**
 * Operator CLI: mints an admin-scoped token (Bull Board, every route) for the
 * operator account, creating that account on first use.
 *   npm run token:admin -- [name]
 */
import { DEFAULT_SCOPES } from '../shared/schemas/auth.js';
import { loadConfig } from '../shared/config.js';
import { createDb } from '../shared/db/knex.js';
import { hashPassword } from '../shared/crypto.js';
import { randomSecret } from '../shared/ids.js';
import { issueToken } from '../shared/auth/issue-token.js';

const OPERATOR_ID = 'acct_operator';
const config = loadConfig();
if (!config.DATABASE_URL) {
  console.error('DATABASE_URL is not set (npm start prints the local one)');
  process.exit(1);
}
const db = createDb(config.DATABASE_URL);
try {
  await db('accounts')
    .insert({ id: OPERATOR_ID, email: 'operator@awp.local', name: 'operator', password_hash: await hashPassword(randomSecret()), plan: 'team', status: 'active' })
    .onConflict('id')
    .ignore();
  const { token, row } = await issueToken(db, OPERATOR_ID, { name: process.argv[2] ?? 'admin', scopes: [...DEFAULT_SCOPES, 'admin'] });
  console.log(JSON.stringify({ tokenId: row.id, token }));
} finally {
  await db.destroy();
}
