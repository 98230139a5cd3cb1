import { issueToken } from '../../jobs/accounts/issue-token.js';
import { newId } from '../../shared/ids.js';
import { DEFAULT_SCOPES, type Role } from '../../shared/schemas/auth.js';
import { harness } from './harness.js';

/** A second member of the account, with a token asking for every scope (the role bounds what it gets). */
export async function member(accountId: string, role: Role): Promise<{ memberId: string; token: string }> {
  const id = newId('mem');
  await harness.deps.db('members').insert({ id, account_id: accountId, email: `${id}@test.local`, name: role, role });
  const { token } = await issueToken(harness.deps.db, accountId, { name: role, scopes: DEFAULT_SCOPES, memberId: id });
  return { memberId: id, token };
}

/** The account's owner member id (who `harness.account()`'s token belongs to). */
export async function ownerOf(accountId: string): Promise<string> {
  return (await harness.deps.db('members').where({ account_id: accountId, role: 'owner' }).first('id')).id;
}
