import { issueToken } from '../../jobs/accounts/issue-token.js';
import { newId } from '../../shared/ids.js';
import type { Role } from '../../shared/schemas/auth.js';
import { harness } from './harness.js';

/** Another token of the account, narrowed to `scopes` (the owner's unless a member is named). */
export async function tokenWith(accountId: string, scopes: string[], memberId?: string): Promise<string> {
  const name = `narrow-${scopes.join('+')}`;
  return (await issueToken(harness.deps.db, accountId, { name, scopes, ...(memberId ? { memberId } : {}) })).token;
}

/** A second, active member of the account with `role`, written directly (members management is not under test here). */
export async function addMember(accountId: string, role: Role): Promise<string> {
  const id = newId('mem');
  await harness.deps.db('members').insert({
    id,
    account_id: accountId,
    email: `${id}@test.local`,
    name: id,
    role,
    status: 'active',
    activated_at: new Date(),
  });
  return id;
}

/** Receipts a run settled: none when a refused step performed no effect. */
export async function receiptsOf(runId: string): Promise<number> {
  return (await harness.deps.db('pay_receipts').where({ run_id: runId })).length;
}
