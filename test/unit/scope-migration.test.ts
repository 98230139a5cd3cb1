import assert from 'node:assert/strict';
import { grantNewScopes, OLD_DEFAULT_SCOPES } from '../../migrations/20261125002200_signals_schedules.js';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { harness } from '../support/harness.js';

describe('migration: signals and schedules scopes', () => {
  it('grants the four new scopes to tokens with the whole previous default set, not to narrowed ones', async () => {
    const { accountId } = await harness.account();
    const old = await issueToken(harness.deps.db, accountId, {
      name: 'old default',
      scopes: OLD_DEFAULT_SCOPES as never,
    });
    const narrow = await issueToken(harness.deps.db, accountId, { name: 'narrow', scopes: ['runs:read'] as never });
    await grantNewScopes(harness.deps.db);
    const scopes = async (id: string) => (await harness.deps.db('api_tokens').where({ id }).first()).scopes as string[];
    assert.deepEqual((await scopes(old.row.id)).slice(-4), [
      'signals:read',
      'signals:write',
      'schedules:read',
      'schedules:write',
    ]);
    assert.deepEqual(await scopes(narrow.row.id), ['runs:read']);
    await grantNewScopes(harness.deps.db);
    assert.equal((await scopes(old.row.id)).length, OLD_DEFAULT_SCOPES.length + 4, 'granted once');
  });
});
