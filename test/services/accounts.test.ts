import assert from 'node:assert/strict';
import { tokenAuthenticator } from '../../jobs/accounts/authenticate.js';
import { createToken, revokeAccountToken, rotateToken } from '../../jobs/accounts/service.js';
import type { AppError } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { harness } from '../support/harness.js';

describe('account service', () => {
  const db = () => harness.deps.db;
  const tokensOf = async (accountId: string) =>
    db()('api_tokens').where({ account_id: accountId }).orderBy('created_at');

  it('resolves an active token into its principal; unknown and revoked tokens resolve to nothing', async () => {
    const pending = await harness.account({ activated: false, plan: 'builder', scopes: ['runs:read'] });
    const resolve = tokenAuthenticator(harness.deps);
    const owner = await harness.deps.db('members').where({ account_id: pending.accountId, role: 'owner' }).first();
    assert.deepEqual(await resolve(pending.token), {
      accountId: pending.accountId,
      tokenId: pending.tokenId,
      memberId: owner.id,
      role: 'owner',
      scopes: ['runs:read'],
      plan: 'builder',
      activated: false,
      transports: ['http', 'mcp', 'a2a'],
    });
    assert.equal(await resolve(`${pending.token}x`), null);
    const principal = (await resolve(pending.token))!;
    await revokeAccountToken(harness.deps, principal, pending.tokenId);
    assert.equal(await resolve(pending.token), null);
  });

  it('records when a token was last used', async () => {
    const a = await harness.account();
    await tokenAuthenticator(harness.deps)(a.token);
    // The write is deliberately not awaited by authentication; wait for it here.
    for (let i = 0; i < 100 && !(await tokensOf(a.accountId))[0].last_used_at; i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok((await tokensOf(a.accountId))[0].last_used_at);
  });

  it('refuses to grant a scope the creator lacks (403) and writes no token', async () => {
    const a = await harness.account({ scopes: ['tokens:manage', 'runs:read'] });
    const principal: Principal = {
      accountId: a.accountId,
      tokenId: a.tokenId,
      scopes: ['tokens:manage', 'runs:read'],
      plan: 'team',
      activated: true,
    };
    await assert.rejects(
      createToken(harness.deps, principal, { scopes: ['runs:read', 'runs:write'] }),
      (err: AppError) => err.status === 403 && /runs:write/.test(err.message),
    );
    assert.equal((await tokensOf(a.accountId)).length, 1);
    const narrowed = await createToken(harness.deps, principal, {});
    assert.deepEqual(narrowed.row.scopes, ['runs:read', 'tokens:manage']);
  });

  it('rotating a revoked token is 404 and issues nothing', async () => {
    const a = await harness.account();
    const principal: Principal = {
      accountId: a.accountId,
      tokenId: a.tokenId,
      scopes: ['tokens:manage'],
      plan: 'team',
      activated: true,
    };
    const second = await createToken(harness.deps, principal, { name: 'ci' });
    await revokeAccountToken(harness.deps, principal, second.row.id);
    await assert.rejects(rotateToken(harness.deps, principal, second.row.id), (err: AppError) => err.status === 404);
    assert.equal((await tokensOf(a.accountId)).length, 2);
  });
});
