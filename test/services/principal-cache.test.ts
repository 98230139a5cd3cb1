import assert from 'node:assert/strict';
import { PRINCIPAL_TTL_MS, tokenAuthenticator } from '../../jobs/accounts/authenticate.js';
import { revokeAccountToken } from '../../jobs/accounts/service.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { harness } from '../support/harness.js';

describe('resolved tokens are cached briefly and forgotten on revoke, in every process', () => {
  it('a revoked token stops working at once here, and in another process as soon as the bus tells it', async () => {
    const { accountId, token, tokenId } = await harness.account();
    const other = createDeps(harness.config, createLogger('silent')); // a second process: its own cache
    try {
      const here = tokenAuthenticator(harness.deps);
      const there = tokenAuthenticator(other);
      assert.equal((await here(token))?.tokenId, tokenId);
      assert.equal((await there(token))?.tokenId, tokenId);
      // Served from the cache: the row is gone from Postgres's point of view only through the service, so prove the
      // cache answers.
      await harness.deps
        .db('api_tokens')
        .where({ id: tokenId })
        .update({ scopes: ['runs:read'] });
      assert.ok((await here(token))!.scopes.length > 1, 'the cached principal answered');

      const principal = {
        accountId,
        tokenId,
        scopes: ['tokens:manage', 'admin'],
        plan: 'team' as const,
        activated: true,
      };
      await revokeAccountToken(harness.deps, principal, tokenId);
      assert.equal(await here(token), null, 'the revoking process forgets at once');
      const deadline = Date.now() + PRINCIPAL_TTL_MS - 1000;
      let seen = await there(token);
      while (seen && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        seen = await there(token);
      }
      assert.equal(seen, null, 'the other process forgot before the cache entry could expire by itself');
    } finally {
      await other.close();
    }
  });

  it('a revoked token is refused by the API on the very next request', async () => {
    const { token, tokenId } = await harness.account();
    assert.equal((await harness.call('GET', '/v1/runs', { token })).status, 200);
    assert.equal((await harness.call('POST', `/v1/tokens/${tokenId}/revoke`, { token })).status, 200);
    assert.equal((await harness.call('GET', '/v1/runs', { token })).status, 401);
  });
});
