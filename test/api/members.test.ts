import assert from 'node:assert/strict';
import { sha256 } from '../../shared/crypto.js';
import { ROLE_SCOPES } from '../../shared/schemas/auth.js';
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

const ownerOf = async (accountId: string) =>
  (await harness.deps.db('members').where({ account_id: accountId, role: 'owner' }).first()).id as string;
const setRole = (token: string, memberId: string, role: string) =>
  harness.call('POST', `/v1/members/${memberId}/role`, { token, body: { role } });

describe('account members', () => {
  it(
    'invite → mail with a one-time code (only its hash ' +
      'kept) → activate → sign in → a token bounded by the ' +
      'role',
    async () => {
      const a = await harness.account();
      const email = uniqueEmail('dev');
      const invited = await harness.call('POST', '/v1/members/invite', {
        token: a.token,
        body: { email, name: 'Dev', role: 'developer' },
      });
      assert.equal(invited.status, 201, invited.text);
      assert.deepEqual(
        [invited.body.member.status, invited.body.member.role, invited.body.invitation.sentTo],
        ['invited', 'developer', email],
      );
      const code = await invitationCodeFor(email);
      assert.ok(!invited.text.includes(code), 'the code is only in the mail');
      const row = await harness.deps.db('members').where({ id: invited.body.member.memberId }).first();
      assert.equal(row.activation_hash, sha256(code));
      assert.equal(row.invited_by, await ownerOf(a.accountId));

      const activated = await harness.call('POST', '/v1/members/activate', {
        body: { invitationCode: code, password: PASSWORD },
      });
      assert.equal(activated.status, 200, activated.text);
      assert.deepEqual(
        [activated.body.accountId, activated.body.memberId, activated.body.role],
        [a.accountId, row.id, 'developer'],
      );
      assert.equal(
        (await harness.call('POST', '/v1/members/activate', { body: { invitationCode: code, password: PASSWORD } }))
          .status,
        404,
        'used once',
      );

      const { cookie, csrf } = await signIn(email);
      const made = await harness.call('POST', '/v1/tokens', { headers: { cookie, 'x-csrf-token': csrf }, body: {} });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.tokenInfo.memberId, row.id);
      assert.deepEqual([...made.body.tokenInfo.scopes].sort(), [...ROLE_SCOPES.developer].sort());
      const wider = await harness.call('POST', '/v1/tokens', {
        headers: { cookie, 'x-csrf-token': csrf },
        body: { scopes: ['audit:read'] },
      });
      assert.equal(wider.status, 403);
      const token = made.body.token;
      assert.equal((await harness.call('GET', '/v1/audit/log', { token })).status, 403);
      const devInvites = await harness.call('POST', '/v1/members/invite', {
        token,
        body: { email: uniqueEmail(), name: 'x', role: 'viewer' },
      });
      assert.equal(devInvites.status, 403, 'a developer cannot invite');
      assert.match(devInvites.body.message, /members:manage/);
    },
  );

  it('a viewer reads but cannot write, whatever its token asks for', async () => {
    const a = await harness.account();
    const viewer = await activeMember(a.token, 'viewer');
    assert.ok(viewer.tokenInfo.scopes.every((s: string) => s.endsWith(':read') || s === 'tokens:manage'));
    assert.equal((await harness.call('GET', '/v1/runs', { token: viewer.token })).status, 200);
    assert.equal(
      (await harness.call('POST', '/v1/orchestrator/run', { token: viewer.token, body: { request: 'hi' } })).status,
      403,
    );
    const fromSession = await harness.call('POST', '/v1/orchestrator/run', {
      headers: { cookie: viewer.session.cookie, 'x-csrf-token': viewer.session.csrf },
      body: { request: 'hi' },
    });
    assert.equal(fromSession.status, 403);
  });

  it("a role change narrows (and widens) the member's existing token and session at once", async () => {
    const a = await harness.account();
    const dev = await activeMember(a.token, 'developer');
    const session = { cookie: dev.session.cookie, 'x-csrf-token': dev.session.csrf };
    // An empty body is past the scope check (400) for a developer, refused before it (403) for a viewer.
    const probe = async () => [
      (await harness.call('POST', '/v1/orchestrator/run', { token: dev.token, body: {} })).status,
      (await harness.call('POST', '/v1/orchestrator/run', { headers: session, body: {} })).status,
    ];
    assert.deepEqual(await probe(), [400, 400]);
    const lowered = await setRole(a.token, dev.memberId, 'viewer');
    assert.equal(lowered.status, 200, lowered.text);
    assert.equal(lowered.body.member.role, 'viewer');
    assert.deepEqual(await probe(), [403, 403]);
    assert.equal((await setRole(a.token, dev.memberId, 'developer')).status, 200);
    assert.deepEqual(await probe(), [400, 400]);
    const entries = await auditActions(a.token, 'member.roleChanged');
    assert.deepEqual(
      entries.map((e) => [e.resourceId, e.details.from, e.details.to, e.outcome]),
      [
        [dev.memberId, 'developer', 'viewer', 'ok'],
        [dev.memberId, 'viewer', 'developer', 'ok'],
      ],
    );
    assert.equal(entries[0]!.memberId, await ownerOf(a.accountId));
  });

  it('the last active owner can be neither demoted nor disabled (409, recorded as denied)', async () => {
    const a = await harness.account();
    const first = await ownerOf(a.accountId);
    const demote = await setRole(a.token, first, 'admin');
    assert.equal(demote.status, 409, demote.text);
    assert.equal((await harness.call('POST', `/v1/members/${first}/disable`, { token: a.token })).status, 409);
    const second = await activeMember(a.token, 'owner');
    assert.equal((await setRole(second.token, first, 'admin')).status, 200, 'another owner exists now');
    assert.equal(
      (await harness.call('POST', `/v1/members/${second.memberId}/disable`, { token: second.token })).status,
      409,
    );
    assert.equal((await setRole(second.token, second.memberId, 'viewer')).status, 409);
    const denied = (await auditActions(second.token, 'member.*')).filter((e) => e.outcome === 'denied');
    assert.deepEqual(
      denied.map((e) => e.action),
      ['member.roleChanged', 'member.disabled', 'member.disabled', 'member.roleChanged'],
    );
    assert.match(denied[0]!.details.reason, /last active owner/);
  });

  it('ranks: only an owner makes or governs owners and admins; an admin governs the roles below', async () => {
    const a = await harness.account();
    const admin = await activeMember(a.token, 'admin');
    const owner = await ownerOf(a.accountId);
    for (const role of ['owner', 'admin'] as const) {
      const res = await harness.call('POST', '/v1/members/invite', {
        token: admin.token,
        body: { email: uniqueEmail(), name: 'x', role },
      });
      assert.equal(res.status, 403, role);
    }
    assert.equal((await setRole(admin.token, owner, 'viewer')).status, 403);
    assert.equal((await harness.call('POST', `/v1/members/${owner}/disable`, { token: admin.token })).status, 403);
    const dev = await invite(admin.token, 'developer');
    assert.equal((await setRole(admin.token, dev.memberId, 'admin')).status, 403);
    assert.equal((await setRole(admin.token, dev.memberId, 'approver')).status, 200);
    const denied = (await auditActions(a.token, 'member.*')).filter((e) => e.outcome === 'denied');
    assert.deepEqual(
      denied.map((e) => [e.action, e.memberId]),
      [
        ['member.invited', admin.memberId],
        ['member.invited', admin.memberId],
        ['member.roleChanged', admin.memberId],
        ['member.disabled', admin.memberId],
        ['member.roleChanged', admin.memberId],
      ],
    );
  });

  it("disable stops the member's tokens and sessions at once; enable lets its tokens work again", async () => {
    const a = await harness.account();
    const dev = await activeMember(a.token, 'developer');
    const headers = { cookie: dev.session.cookie };
    assert.equal((await harness.call('GET', '/v1/session', { headers })).status, 200);
    const disabled = await harness.call('POST', `/v1/members/${dev.memberId}/disable`, { token: a.token });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.body.member.status, 'disabled');
    assert.equal((await harness.call('GET', '/v1/tokens', { token: dev.token })).status, 401);
    assert.equal((await harness.call('GET', '/v1/session', { headers })).status, 401);
    assert.equal(
      (await harness.call('POST', '/v1/session', { body: { email: dev.email, password: PASSWORD } })).status,
      401,
    );
    const enabled = await harness.call('POST', `/v1/members/${dev.memberId}/enable`, { token: a.token });
    assert.equal(enabled.body.member.status, 'active');
    assert.equal((await harness.call('GET', '/v1/tokens', { token: dev.token })).status, 200);
    assert.equal((await harness.call('GET', '/v1/session', { headers })).status, 401, 'an ended session stays ended');
    assert.deepEqual((await auditActions(a.token, 'member.*')).map((e) => e.action).slice(-2), [
      'member.disabled',
      'member.enabled',
    ]);
  });

  it("lists and fetches the account's members; another account's member is 404 on every route", async () => {
    const a = await harness.account();
    const b = await harness.account();
    const dev = await invite(a.token, 'developer');
    const list = await harness.call('GET', '/v1/members', { token: a.token });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.members.map((m: any) => m.role),
      ['owner', 'developer'],
    );
    assert.ok(!list.text.includes('password') && !list.text.includes('activation'));
    const invited = await harness.call('GET', '/v1/members?status=invited', { token: a.token });
    assert.deepEqual(
      invited.body.members.map((m: any) => m.memberId),
      [dev.memberId],
    );
    assert.equal(
      (await harness.call('GET', `/v1/members/${dev.memberId}`, { token: a.token })).body.member.email,
      dev.email,
    );
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/v1/members/${dev.memberId}`],
      ['POST', `/v1/members/${dev.memberId}/role`, { role: 'viewer' }],
      ['POST', `/v1/members/${dev.memberId}/disable`],
      ['POST', `/v1/members/${dev.memberId}/enable`],
      ['DELETE', `/v1/members/${dev.memberId}`],
    ];
    for (const [method, path, body] of calls)
      assert.equal((await harness.call(method, path, { token: b.token, body })).status, 404, `${method} ${path}`);
    assert.deepEqual((await harness.call('GET', '/v1/members', { token: b.token })).body.members.length, 1);
  });

  it(
    '409 for an email already in the account (any case); a pending invitation is withdrawn, an expired code is ' +
      '404',
    async () => {
      const a = await harness.account();
      const first = await invite(a.token, 'viewer');
      const dup = await harness.call('POST', '/v1/members/invite', {
        token: a.token,
        body: { email: first.email.toUpperCase(), name: 'x', role: 'viewer' },
      });
      assert.equal(dup.status, 409);
      const code = await invitationCodeFor(first.email);
      assert.equal((await harness.call('DELETE', `/v1/members/${first.memberId}`, { token: a.token })).status, 200);
      assert.equal(
        (await harness.call('POST', '/v1/members/activate', { body: { invitationCode: code, password: PASSWORD } }))
          .status,
        404,
      );
      const again = await invite(a.token, 'viewer', first.email);
      await harness.deps
        .db('members')
        .where({ id: again.memberId })
        .update({ invite_expires_at: new Date(Date.now() - 1000) });
      const stale = await harness.call('POST', '/v1/members/activate', {
        body: { invitationCode: await invitationCodeFor(first.email), password: PASSWORD },
      });
      assert.equal(stale.status, 404);
      assert.equal(
        (await harness.call('DELETE', `/v1/members/${await ownerOf(a.accountId)}`, { token: a.token })).status,
        409,
        'an accepted member is disabled, not removed',
      );
      assert.equal(
        (await harness.call('POST', `/v1/members/${again.memberId}/disable`, { token: a.token })).status,
        409,
      );
      assert.deepEqual(
        (await auditActions(a.token, 'member.*')).map((e) => e.action),
        ['member.invited', 'member.removed', 'member.invited'],
      );
    },
  );

  it('400 for bad input and 401 without a token on every route', async () => {
    const a = await harness.account();
    const long = 'm'.repeat(201);
    const bad: Array<[string, string, unknown?]> = [
      ['GET', '/v1/members?status=gone'],
      ['GET', `/v1/members/${long}`],
      ['POST', '/v1/members/invite', { email: 'not-an-email', name: 'x', role: 'viewer' }],
      ['POST', '/v1/members/invite', { email: uniqueEmail(), name: 'x', role: 'superuser' }],
      ['POST', '/v1/members/activate', { invitationCode: 'inv_0123456789', password: 'short' }],
      ['POST', '/v1/members/x/role', { role: 'root' }],
      ['POST', `/v1/members/${long}/disable`],
      ['POST', `/v1/members/${long}/enable`],
      ['DELETE', `/v1/members/${long}`],
    ];
    for (const [method, path, body] of bad) {
      const res = await harness.call(method, path, { token: a.token, body });
      assert.equal(res.status, 400, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error, 'invalidPayload');
    }
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/members'],
      ['GET', '/v1/members/mem_x'],
      ['POST', '/v1/members/invite', { email: uniqueEmail(), name: 'x', role: 'viewer' }],
      ['POST', '/v1/members/mem_x/role', { role: 'viewer' }],
      ['POST', '/v1/members/mem_x/disable'],
      ['POST', '/v1/members/mem_x/enable'],
      ['DELETE', '/v1/members/mem_x'],
    ];
    for (const [method, path, body] of routes)
      assert.equal((await harness.call(method, path, { body })).status, 401, `${method} ${path}`);
    assert.equal(
      (
        await harness.call('POST', '/v1/members/activate', {
          body: { invitationCode: 'inv_unknown-code', password: PASSWORD },
        })
      ).status,
      404,
    );
    assert.equal((await harness.call('GET', '/v1/members/mem_missing', { token: a.token })).status, 404);
  });
});
