/**
 * Operator CLI: mints an admin-scoped token (Bull Board, every route, no
 * burst limit or workflow quotas) for the operator account, creating that
 * account on first use.
 *   npm run token:admin -- [name]
 * The bare token is the only line on stdout, so `TOKEN=$(npm run -s token:admin)`
 * or `npm run token:admin | tail -1` gives it; what it is goes to stderr.
 */
import { DEFAULT_SCOPES } from '../shared/schemas/auth.js';
import { withScriptDb } from './support/script-db.js';
import { hashPassword } from '../shared/crypto.js';
import { randomSecret } from '../shared/ids.js';
import { issueToken } from '../jobs/accounts/issue-token.js';

const OPERATOR_ID = 'acct_operator';
await withScriptDb(async (db) => {
  await db('accounts')
    .insert({
      id: OPERATOR_ID,
      email: 'operator@awp.local',
      name: 'operator',
      password_hash: await hashPassword(randomSecret()),
      plan: 'team',
      status: 'active',
    })
    .onConflict('id')
    .ignore();
  const { token, row } = await issueToken(db, OPERATOR_ID, {
    name: process.argv[2] ?? 'admin',
    scopes: [...DEFAULT_SCOPES, 'admin'],
  });
  console.error(
    `admin token ${row.id} (${row.name}) for the operator account; the secret is shown once, on the next line:`,
  );
  console.log(token);
});
