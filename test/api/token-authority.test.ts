import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

/** Issue 8 §6: a token that can manage tokens must not become a way to obtain or switch off a more powerful one. */
describe('token authority and secrets in idempotency records', () => {
  const issue = async (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await harness.call('POST', '/v1/tokens', { token, body, headers });
    assert.equal(res.status, 201, res.text);
    return { token: res.body.token as string, tokenId: res.body.tokenInfo.tokenId as string };
  };
  const rowsHolding = async (accountId: string, secret: string) =>
    (await harness.deps.db('idempotency_keys').where({ account_id: accountId })).filter((r) =>
      JSON.stringify(r).includes(secret),
    );

  it(
    'a tokens:manage-only token cannot rotate or revoke a token with more scopes (403); the target keeps ' + 'working',
    async () => {
      const full = await harness.account();
      const manager = await issue(full.token, { name: 'manager', scopes: ['tokens:manage'] });
      const rotate = await harness.call('POST', `/v1/tokens/${full.tokenId}/rotate`, { token: manager.token });
      assert.equal(rotate.status, 403, rotate.text);
      assert.equal(rotate.body.error, 'forbidden');
      assert.equal(rotate.body.token, undefined);
      assert.match(rotate.body.message, /runs:write/);
      const revoke = await harness.call('POST', `/v1/tokens/${full.tokenId}/revoke`, { token: manager.token });
      assert.equal(revoke.status, 403, revoke.text);
      assert.equal(
        (await harness.call('GET', '/v1/tokens', { token: full.token })).status,
        200,
        'the full token is still active',
      );
    },
  );

  it('a token may rotate or revoke tokens whose scopes it holds, and may always revoke itself', async () => {
    const full = await harness.account();
    const manager = await issue(full.token, { name: 'manager', scopes: ['tokens:manage', 'runs:read'] });
    const reader = await issue(full.token, { name: 'reader', scopes: ['runs:read'] });
    const rotated = await harness.call('POST', `/v1/tokens/${reader.tokenId}/rotate`, { token: manager.token });
    assert.equal(rotated.status, 201, rotated.text);
    assert.deepEqual(rotated.body.tokenInfo.scopes, ['runs:read']);
    assert.equal(
      (await harness.call('POST', `/v1/tokens/${rotated.body.tokenInfo.tokenId}/revoke`, { token: manager.token }))
        .status,
      200,
    );
    // Rotating itself is allowed too (it holds its own scopes); revoking itself needs nothing more.
    const self = await harness.call('POST', `/v1/tokens/${manager.tokenId}/revoke`, { token: manager.token });
    assert.equal(self.status, 200, self.text);
    assert.equal((await harness.call('GET', '/v1/tokens', { token: manager.token })).status, 401);
  });

  it("creation defaults to the caller's scopes and refuses any it lacks", async () => {
    const full = await harness.account();
    const manager = await issue(full.token, { name: 'manager', scopes: ['tokens:manage'] });
    const child = await harness.call('POST', '/v1/tokens', { token: manager.token, body: { name: 'child' } });
    assert.deepEqual(child.body.tokenInfo.scopes, ['tokens:manage']);
    assert.equal(
      (await harness.call('POST', '/v1/tokens', { token: manager.token, body: { scopes: ['runs:write'] } })).status,
      403,
    );
  });

  it("another token of the account replaying a creation's Idempotency-Key gets 409, never the secret", async () => {
    const full = await harness.account();
    const manager = await issue(full.token, { name: 'manager', scopes: ['tokens:manage'] });
    const headers = { 'idempotency-key': `create-${full.accountId}` };
    const first = await issue(full.token, { name: 'ci' }, headers);
    const replay = await harness.call('POST', '/v1/tokens', { token: manager.token, body: { name: 'ci' }, headers });
    assert.equal(replay.status, 409, replay.text);
    assert.equal(replay.body.error, 'conflict');
    assert.ok(!replay.text.includes(first.token));
    assert.equal((await harness.deps.db('api_tokens').where({ account_id: full.accountId, name: 'ci' })).length, 1);
  });

  it(
    'a secret-bearing response is never stored: its own ' + 'replay is 409 secretShownOnce and creates nothing',
    async () => {
      const full = await harness.account();
      const headers = { 'idempotency-key': `own-${full.accountId}` };
      const first = await issue(full.token, { name: 'once' }, headers);
      const replay = await harness.call('POST', '/v1/tokens', { token: full.token, body: { name: 'once' }, headers });
      assert.equal(replay.status, 409, replay.text);
      assert.equal(replay.body.details.reason, 'secretShownOnce');
      assert.equal(replay.body.details.firstStatus, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.ok(!replay.text.includes(first.token));
      assert.equal((await harness.deps.db('api_tokens').where({ account_id: full.accountId, name: 'once' })).length, 1);
      assert.deepEqual(await rowsHolding(full.accountId, first.token), []);

      const rotateHeaders = { 'idempotency-key': `rotate-${full.accountId}` };
      const rotated = await harness.call('POST', `/v1/tokens/${first.tokenId}/rotate`, {
        token: full.token,
        headers: rotateHeaders,
      });
      assert.equal(rotated.status, 201);
      assert.deepEqual(await rowsHolding(full.accountId, rotated.body.token), []);
      const again = await harness.call('POST', `/v1/tokens/${first.tokenId}/rotate`, {
        token: full.token,
        headers: rotateHeaders,
      });
      assert.equal(again.status, 409);
      assert.ok(!again.text.includes(rotated.body.token));
    },
  );

  it('webhook secrets and a starter token are not stored in idempotency records either', async () => {
    const full = await harness.account();
    const sub = await harness.call('POST', '/v1/event-subscriptions', {
      token: full.token,
      headers: { 'idempotency-key': `sub-${full.accountId}` },
      body: { endpoint: 'https://hooks.example/x', events: ['invoice.*'] },
    });
    assert.equal(sub.status, 201, sub.text);
    assert.deepEqual(await rowsHolding(full.accountId, sub.body.secret), []);
    const rotated = await harness.call(
      'POST',
      `/v1/event-subscriptions/${sub.body.subscription.subscriptionId}/update`,
      {
        token: full.token,
        headers: { 'idempotency-key': `subrot-${full.accountId}` },
        body: { rotateSecret: true },
      },
    );
    assert.ok(rotated.body.secret);
    assert.deepEqual(await rowsHolding(full.accountId, rotated.body.secret), []);
    // A public route that was sent a valid token anyway still records under the caller's key.
    const profile = await harness.call('POST', '/v1/profiles', {
      token: full.token,
      headers: { 'idempotency-key': `profile-${full.accountId}` },
      body: { email: `p-${full.accountId}@test.local`, name: 'P', password: 'correct horse' },
    });
    assert.equal(profile.status, 201, profile.text);
    assert.deepEqual(await rowsHolding(full.accountId, profile.body.token), []);
  });
});
