import assert from 'node:assert/strict';
import { recordAudit } from '../../jobs/audit/index.js';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { newId } from '../../shared/ids.js';
import { DEFAULT_SCOPES, type Role } from '../../shared/schemas/auth.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

/** A second member of the account, with a token asking for every scope (the role bounds what it gets). */
async function member(accountId: string, role: Role) {
  const id = newId('mem');
  await harness.deps.db('members').insert({ id, account_id: accountId, email: `${id}@test.local`, name: role, role });
  const { token } = await issueToken(harness.deps.db, accountId, { name: role, scopes: DEFAULT_SCOPES, memberId: id });
  return { memberId: id, token };
}

describe('audit log and members', () => {
  it('every account has an owner member, and its tokens belong to it', async () => {
    const a = await harness.account();
    const owner = await harness.deps.db('members').where({ account_id: a.accountId }).first();
    assert.equal(owner.role, 'owner');
    const tok = await harness.deps.db('api_tokens').where({ id: a.tokenId }).first();
    assert.equal(tok.member_id, owner.id);
  });

  it('lists entries newest first, filtered by member, action family, resource and time', async () => {
    const a = await harness.account();
    const { db } = harness.deps;
    await recordAudit(db, {
      accountId: a.accountId,
      memberId: 'mem_x',
      action: 'credential.created',
      resourceType: 'credential',
      resourceId: 'crd_1',
    });
    await recordAudit(db, {
      accountId: a.accountId,
      memberId: 'mem_y',
      action: 'approval.granted',
      resourceType: 'run',
      resourceId: 'run_1',
      details: { gate: 'deploy' },
    });
    await recordAudit(db, {
      accountId: a.accountId,
      memberId: 'mem_x',
      action: 'credential.rotated',
      resourceType: 'credential',
      resourceId: 'crd_1',
    });
    const all = await harness.call('GET', '/v1/audit/log', { token: a.token });
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.entries.map((e: { action: string }) => e.action),
      ['credential.rotated', 'approval.granted', 'credential.created'],
    );
    const family = await harness.call('GET', '/v1/audit/log?action=credential.*', { token: a.token });
    assert.equal(family.body.entries.length, 2);
    const byMember = await harness.call('GET', '/v1/audit/log?memberId=mem_y', { token: a.token });
    assert.equal(byMember.body.entries.length, 1);
    assert.deepEqual(byMember.body.entries[0].details, { gate: 'deploy' });
    const byResource = await harness.call('GET', '/v1/audit/log?resourceType=run&resourceId=run_1', { token: a.token });
    assert.equal(byResource.body.entries[0].action, 'approval.granted');
    const future = new Date(Date.now() + 60_000).toISOString();
    assert.equal(
      (await harness.call('GET', `/v1/audit/log?since=${future}`, { token: a.token })).body.entries.length,
      0,
    );
    const paged = await harness.call('GET', '/v1/audit/log?limit=2', { token: a.token });
    assert.equal(paged.body.entries.length, 2);
    const next = await harness.call('GET', `/v1/audit/log?limit=2&cursor=${paged.body.nextCursor}`, { token: a.token });
    assert.equal(next.body.entries[0].action, 'credential.created');
  });

  it('400 for a bad filter, 401 without a token, nothing of another account', async () => {
    const a = await harness.account();
    const b = await harness.account();
    await recordAudit(harness.deps.db, {
      accountId: a.accountId,
      action: 'token.created',
      resourceType: 'token',
      resourceId: a.tokenId,
    });
    assert.equal((await harness.call('GET', '/v1/audit/log?since=yesterday', { token: a.token })).status, 400);
    assert.equal((await harness.call('GET', '/v1/audit/log?action=a%20b', { token: a.token })).status, 400);
    assert.equal((await harness.call('GET', '/v1/audit/log')).status, 401);
    const other = await harness.call('GET', '/v1/audit/log', { token: b.token });
    assert.equal(other.status, 200);
    assert.equal(other.body.entries.length, 0);
  });

  it('is append-only: Postgres refuses to change or remove an entry', async () => {
    const a = await harness.account();
    await recordAudit(harness.deps.db, { accountId: a.accountId, action: 'token.created', resourceType: 'token' });
    await assert.rejects(
      harness.deps.db('audit_log').where({ account_id: a.accountId }).update({ action: 'x' }),
      /append-only/,
    );
    await assert.rejects(harness.deps.db('audit_log').where({ account_id: a.accountId }).del(), /append-only/);
  });

  it("a member's role bounds its token: a developer cannot read the audit log, an approver can", async () => {
    const a = await harness.account();
    const dev = await member(a.accountId, 'developer');
    const denied = await harness.call('GET', '/v1/audit/log', { token: dev.token });
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /audit:read/);
    const approver = await member(a.accountId, 'approver');
    assert.equal((await harness.call('GET', '/v1/audit/log', { token: approver.token })).status, 200);
    assert.equal(
      (await harness.call('POST', '/v1/orchestrator/run', { token: approver.token, body: { request: 'hi' } })).status,
      403,
    );
  });

  it("a disabled member's tokens stop working", async () => {
    const a = await harness.account();
    const dev = await member(a.accountId, 'developer');
    assert.equal((await harness.call('GET', '/v1/tokens', { token: dev.token })).status, 200);
    await harness.deps.db('members').where({ id: dev.memberId }).update({ status: 'disabled' });
    const { forgetPrincipals } = await import('../../jobs/accounts/authenticate.js');
    await forgetPrincipals(harness.deps, { accountId: a.accountId });
    // The app's requests resolve tokens through their own cache, cleared when the bus message reaches it.
    const refused = await until(
      () => harness.call('GET', '/v1/tokens', { token: dev.token }),
      (r) => r.status !== 200,
    );
    assert.equal(refused.status, 401);
  });
});
