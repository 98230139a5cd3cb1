import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import {
  activeMember,
  auditActions,
  invitationCodeFor,
  invite,
  PASSWORD,
  signIn,
  uniqueEmail,
} from '../support/members.js';

const ids = (res: { body: { tokens: Array<{ tokenId: string }> } }) => res.body.tokens.map((t) => t.tokenId);

describe('tokens of members', () => {
  it("a member manages its own tokens; another member's need an owner or admin (404 to the others)", async () => {
    const a = await harness.account();
    const dev = await activeMember(a.token, 'developer');
    const own = await harness.call('GET', '/v1/tokens', { token: dev.token });
    assert.deepEqual(ids(own), [dev.tokenId], 'a developer sees only its own tokens');
    const all = ids(await harness.call('GET', '/v1/tokens', { token: a.token }));
    assert.ok(all.includes(dev.tokenId) && all.includes(a.tokenId), 'the owner sees every token of the account');
    for (const path of [`/v1/tokens/${a.tokenId}`])
      assert.equal((await harness.call('GET', path, { token: dev.token })).status, 404);
    for (const verb of ['rotate', 'revoke']) {
      assert.equal(
        (await harness.call('POST', `/v1/tokens/${a.tokenId}/${verb}`, { token: dev.token })).status,
        404,
        verb,
      );
    }
    assert.equal(
      (await harness.call('GET', '/v1/tokens', { token: a.token })).status,
      200,
      "the owner's token still works",
    );
    const rotated = await harness.call('POST', `/v1/tokens/${dev.tokenId}/rotate`, { token: a.token });
    assert.equal(rotated.status, 201, rotated.text);
    assert.equal(rotated.body.tokenInfo.memberId, dev.memberId, "a rotated token stays its member's");
    assert.equal((await harness.call('GET', '/v1/tokens', { token: dev.token })).status, 401);
    const revoked = await harness.call('POST', `/v1/tokens/${rotated.body.tokenInfo.tokenId}/revoke`, {
      token: a.token,
    });
    assert.equal(revoked.status, 200, revoked.text);
  });

  it("an admin manages the tokens of the roles below it, not an owner's (403)", async () => {
    const a = await harness.account();
    const admin = await activeMember(a.token, 'admin');
    const dev = await activeMember(a.token, 'developer');
    // Dashboard-made tokens are HTTP-only; the owner's target is too, so only the rank decides.
    const ownerHttp = await harness.call('POST', '/v1/tokens', { token: a.token, body: { transports: ['http'] } });
    const refused = await harness.call('POST', `/v1/tokens/${ownerHttp.body.tokenInfo.tokenId}/revoke`, {
      token: admin.token,
    });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.message, /only an owner/);
    assert.equal((await harness.call('POST', `/v1/tokens/${dev.tokenId}/revoke`, { token: admin.token })).status, 200);
    assert.equal(
      (await harness.call('POST', `/v1/tokens/${admin.tokenId}/revoke`, { token: admin.token })).status,
      200,
      'itself',
    );
  });

  it('records token.created, token.rotated and token.revoked with the actor, never the secret', async () => {
    const a = await harness.account();
    const made = await harness.call('POST', '/v1/tokens', {
      token: a.token,
      body: { name: 'ci', scopes: ['runs:read'] },
    });
    const rotated = await harness.call('POST', `/v1/tokens/${made.body.tokenInfo.tokenId}/rotate`, { token: a.token });
    await harness.call('POST', `/v1/tokens/${rotated.body.tokenInfo.tokenId}/revoke`, { token: a.token });
    const entries = await auditActions(a.token, 'token.*');
    assert.deepEqual(
      entries.map((e) => [e.action, e.resourceId, e.tokenId]),
      [
        ['token.created', made.body.tokenInfo.tokenId, a.tokenId],
        ['token.rotated', made.body.tokenInfo.tokenId, a.tokenId],
        ['token.revoked', rotated.body.tokenInfo.tokenId, a.tokenId],
      ],
    );
    assert.equal(entries[1]!.details.rotatedTo, rotated.body.tokenInfo.tokenId);
    assert.deepEqual(entries[0]!.details.scopes, ['runs:read']);
    const text = JSON.stringify(entries);
    assert.ok(!text.includes(made.body.token) && !text.includes(rotated.body.token), 'no secret in the log');
  });

  it("a new profile's starter token is recorded as created by its owner", async () => {
    const email = uniqueEmail('profile');
    const created = await harness.call('POST', '/v1/profiles', { body: { email, name: 'P', password: PASSWORD } });
    const entries = await auditActions(created.body.token, 'token.created');
    assert.deepEqual(
      entries.map((e) => [e.resourceId, e.details.name]),
      [[created.body.tokenId, 'starter']],
    );
    assert.ok(entries[0]!.memberId?.startsWith('mem_'));
  });

  it(
    'an email in several accounts signs in with accountId; without it, 409 names the accounts its password ' + 'opens',
    async () => {
      const a = await harness.account();
      const b = await harness.account();
      const c = await harness.account();
      const email = uniqueEmail('multi');
      for (const [owner, password] of [
        [a.token, PASSWORD],
        [b.token, PASSWORD],
        [c.token, 'another-password'],
      ] as const) {
        await invite(owner, 'viewer', email);
        const code = await invitationCodeFor(email);
        assert.equal(
          (await harness.call('POST', '/v1/members/activate', { body: { invitationCode: code, password } })).status,
          200,
        );
      }
      const which = await harness.call('POST', '/v1/session', { body: { email, password: PASSWORD } });
      assert.equal(which.status, 409, which.text);
      assert.deepEqual(
        which.body.details.accounts.map((x: any) => x.accountId).sort(),
        [a.accountId, b.accountId].sort(),
      );
      const intoB = await signIn(email, PASSWORD, b.accountId);
      const me = await harness.call('GET', '/v1/session', { headers: { cookie: intoB.cookie } });
      assert.equal(me.body.account.accountId, b.accountId);
      assert.deepEqual(
        [me.body.member.email, me.body.member.role],
        [email, 'viewer'],
        'the session says which member it is',
      );
      const intoC = await signIn(email, 'another-password');
      assert.equal(
        (await harness.call('GET', '/v1/session', { headers: { cookie: intoC.cookie } })).body.account.accountId,
        c.accountId,
      );
      const wrongAccount = await harness.call('POST', '/v1/session', {
        body: { email, password: PASSWORD, accountId: c.accountId },
      });
      assert.equal(wrongAccount.status, 401);
    },
  );
});
