import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('tokens', () => {
  it("lists the account's tokens without secrets", async () => {
    const { token, tokenId } = await harness.account();
    const res = await harness.call('GET', '/v1/tokens', { token });
    assert.equal(res.status, 200);
    assert.equal(res.body.tokens.length, 1);
    assert.equal(res.body.tokens[0].tokenId, tokenId);
    assert.ok(!JSON.stringify(res.body).includes(token));
    assert.equal(res.body.tokens[0].prefix, token.slice(0, 10));
  });

  it('creates a narrower token that is refused where it lacks the scope (403)', async () => {
    const { token } = await harness.account();
    const created = await harness.call('POST', '/v1/tokens', {
      token,
      body: { name: 'reader', scopes: ['runs:read'] },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.tokenInfo.scopes, ['runs:read']);
    const denied = await harness.call('GET', '/v1/tokens', { token: created.body.token });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error, 'forbidden');
    assert.match(denied.body.message, /tokens:manage/);
  });

  it('refuses to grant scopes the creator lacks (admin) and unknown scopes (400)', async () => {
    const { token } = await harness.account();
    assert.equal((await harness.call('POST', '/v1/tokens', { token, body: { scopes: ['admin'] } })).status, 403);
    const bad = await harness.call('POST', '/v1/tokens', { token, body: { scopes: ['root'] } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalidPayload');
  });

  it('rotates a token: the new one works, the old one is 401', async () => {
    const { token, tokenId } = await harness.account();
    const rotated = await harness.call('POST', `/v1/tokens/${tokenId}/rotate`, { token });
    assert.equal(rotated.status, 201);
    assert.notEqual(rotated.body.token, token);
    assert.equal((await harness.call('GET', '/v1/tokens', { token })).status, 401);
    const list = await harness.call('GET', '/v1/tokens', { token: rotated.body.token });
    assert.equal(list.status, 200);
    const old = list.body.tokens.find((t: { tokenId: string }) => t.tokenId === tokenId);
    assert.equal(old.status, 'revoked');
  });

  it('revokes a token: it answers 401 from then on; revoking again is 404', async () => {
    const { token } = await harness.account();
    const second = await harness.call('POST', '/v1/tokens', { token, body: { name: 'ci' } });
    const id = second.body.tokenInfo.tokenId;
    assert.equal((await harness.call('POST', `/v1/tokens/${id}/revoke`, { token })).status, 200);
    const after = await harness.call('GET', '/v1/tokens', { token: second.body.token });
    assert.equal(after.status, 401);
    assert.equal(after.body.error, 'unauthorized');
    assert.equal((await harness.call('POST', `/v1/tokens/${id}/revoke`, { token })).status, 404);
  });

  it("fetches one token; unknown id is 404; another account's token is 404", async () => {
    const a = await harness.account();
    const b = await harness.account();
    assert.equal(
      (await harness.call('GET', `/v1/tokens/${a.tokenId}`, { token: a.token })).body.token.tokenId,
      a.tokenId,
    );
    assert.equal((await harness.call('GET', '/v1/tokens/tok_missing', { token: a.token })).status, 404);
    assert.equal((await harness.call('GET', `/v1/tokens/${a.tokenId}`, { token: b.token })).status, 404);
    assert.equal((await harness.call('POST', `/v1/tokens/${a.tokenId}/revoke`, { token: b.token })).status, 404);
    assert.equal(
      (await harness.call('GET', `/v1/tokens/${a.tokenId}`, { token: a.token })).body.token.status,
      'active',
    );
  });

  it('answers 401 without a token, with an unknown token and with a malformed header', async () => {
    for (const headers of [{}, { authorization: 'Bearer awp_nope' }, { authorization: 'Basic abc' }] as Record<
      string,
      string
    >[]) {
      const res = await harness.call('GET', '/v1/tokens', { headers });
      assert.equal(res.status, 401);
      assert.equal(res.body.error, 'unauthorized');
    }
  });
});
