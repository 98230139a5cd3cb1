import assert from 'node:assert/strict';
import { crmConnector } from '../support/bridge.js';
import { harness } from '../support/harness.js';

describe('bridge connection sessions', () => {
  let a: { token: string };
  let b: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    for (const id of ['cs-crm', 'cs-other'])
      assert.equal(
        (
          await harness.call('POST', '/v1/bridge/connectors', {
            token: a.token,
            body: crmConnector(id, { caps: ['crm.read', 'crm.update', 'payments.settle'] }),
          })
        ).status,
        201,
      );
  });
  const call = (method: string, path: string, body?: unknown, token = a.token) =>
    harness.call(method, path, { token, ...(body === undefined ? {} : { body }) });
  const open = (body: Record<string, unknown>) =>
    call('POST', '/v1/bridge/connection-sessions', { connectorId: 'cs-crm', ...body });

  it(
    'creates a scoped session (201) that expires in an hour by default; lists (by connector and status) and ' +
      'fetches it',
    async () => {
      const res = await open({ actions: ['crm.read'], resources: ['contacts/4*'] });
      assert.equal(res.status, 201, res.text);
      const s = res.body.session;
      assert.match(s.sessionId, /^csn_/);
      assert.deepEqual(
        [s.connectorId, s.actions, s.resources, s.status, s.revokedAt],
        ['cs-crm', ['crm.read'], ['contacts/4*'], 'active', null],
      );
      const lifetime = new Date(s.expiresAt).getTime() - new Date(s.createdAt).getTime();
      assert.ok(lifetime > 59 * 60_000 && lifetime <= 61 * 60_000, `${lifetime} ms`);
      const wide = await open({
        actions: ['crm.read', 'crm.update'],
        expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString(),
      });
      assert.equal(wide.status, 201, wide.text);
      assert.equal(wide.body.session.resources, null, "not narrowed beyond the connector's scopes");
      const mine = await call('GET', '/v1/bridge/connection-sessions?connectorId=cs-crm&status=active');
      assert.deepEqual(
        mine.body.sessions.map((x: any) => x.sessionId),
        [wide.body.session.sessionId, s.sessionId],
      );
      assert.deepEqual((await call('GET', '/v1/bridge/connection-sessions?connectorId=cs-other')).body.sessions, []);
      const paged = await call('GET', '/v1/bridge/connection-sessions?limit=1');
      assert.equal(paged.body.sessions.length, 1);
      assert.ok(paged.body.nextCursor);
      assert.deepEqual((await call('GET', `/v1/bridge/connection-sessions/${s.sessionId}`)).body.session, s);
    },
  );

  it(
    'refuses actions and resources outside the connector (422 naming each): not a cap, denied by policy, no ' +
      'covering scope',
    async () => {
      const res = await open({
        actions: ['tickets.create', 'payments.settle', 'crm.update'],
        resources: ['contacts/1/notes', 'deals/9'],
      });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(
        res.body.details.problems.map((p: any) => [p.check, p.action, p.resource ?? null]),
        [
          ['capability', 'tickets.create', null],
          ['policy', 'payments.settle', null],
          ['scope', 'payments.settle', 'contacts/1/notes'],
          ['scope', 'payments.settle', 'deals/9'],
          ['scope', 'crm.update', 'deals/9'],
        ],
      );
      assert.equal(
        (await open({ actions: ['crm.read'], resources: ['contacts/**'] })).status,
        422,
        "a glob wider than the scope's is not inside it",
      );
    },
  );

  it('400 for a bad body, expiry, filter or revoke reason; 409 for a disabled connector', async () => {
    assert.equal((await open({})).status, 400);
    assert.equal((await open({ actions: [] })).status, 400);
    assert.equal((await open({ actions: ['crm.read'], resources: ['contacts//x'] })).status, 400);
    assert.equal((await open({ actions: ['crm.read'], expiresAt: 'tomorrow' })).status, 400);
    const past = await open({ actions: ['crm.read'], expiresAt: new Date(Date.now() - 60_000).toISOString() });
    assert.deepEqual([past.status, past.body.message], [400, 'expiresAt must be in the future']);
    const far = await open({ actions: ['crm.read'], expiresAt: new Date(Date.now() + 800 * 3_600_000).toISOString() });
    assert.equal(far.status, 400);
    assert.match(far.body.message, /at most 720 hours/);
    assert.equal((await call('GET', '/v1/bridge/connection-sessions?status=zombie')).status, 400);
    assert.equal((await call('GET', '/v1/bridge/connection-sessions?connectorId=no%20spaces')).status, 400);
    const live = (await open({ actions: ['crm.read'] })).body.session;
    assert.equal(
      (await call('POST', `/v1/bridge/connection-sessions/${live.sessionId}/revoke`, { reason: 'x'.repeat(501) }))
        .status,
      400,
    );
    await call('POST', '/v1/bridge/connectors/cs-other/update', { status: 'disabled' });
    const disabled = await call('POST', '/v1/bridge/connection-sessions', {
      connectorId: 'cs-other',
      actions: ['crm.read'],
    });
    assert.equal(disabled.status, 409);
    await call('POST', '/v1/bridge/connectors/cs-other/update', { status: 'active' });
  });

  it('a session in use must be live: revoked or expired is refused with 409; revoking twice is 409', async () => {
    const s = (await open({ actions: ['crm.read'], resources: ['contacts/4*'] })).body.session;
    const inside = await call('POST', '/v1/bridge/connectors/cs-crm/preflight', {
      action: 'crm.read',
      resource: 'contacts/42',
      sessionId: s.sessionId,
    });
    assert.deepEqual(
      inside.body.checks.find((c: any) => c.check === 'session'),
      { check: 'session', passed: true },
    );
    const outside = await call('POST', '/v1/bridge/connectors/cs-crm/preflight', {
      action: 'crm.read',
      resource: 'contacts/51',
      sessionId: s.sessionId,
    });
    assert.equal(outside.body.status, 'blocked');
    assert.deepEqual(outside.body.errors.find((e: any) => e.check === 'session').resource, 'contacts/51');
    const wrongConnector = await call('POST', '/v1/bridge/connectors/cs-other/preflight', {
      action: 'crm.read',
      sessionId: s.sessionId,
    });
    assert.equal(wrongConnector.status, 400);

    const revoked = await call('POST', `/v1/bridge/connection-sessions/${s.sessionId}/revoke`, {
      reason: 'laptop lost',
    });
    assert.deepEqual(
      [revoked.status, revoked.body.session.status, revoked.body.session.revokedReason],
      [200, 'revoked', 'laptop lost'],
    );
    assert.ok(revoked.body.session.revokedAt);
    const used = await call('POST', '/v1/bridge/connectors/cs-crm/preflight', {
      action: 'crm.read',
      resource: 'contacts/42',
      sessionId: s.sessionId,
    });
    assert.equal(used.status, 409);
    assert.deepEqual(used.body.details, { sessionId: s.sessionId, status: 'revoked' });
    assert.match(used.body.message, /was revoked at .*; open a new session/);
    const twice = await call('POST', `/v1/bridge/connection-sessions/${s.sessionId}/revoke`, {});
    assert.equal(twice.status, 409);
    assert.deepEqual(twice.body.details, { from: 'revoked', to: 'revoked', allowed: [] });

    // Expiry is read from the clock: a session whose time has passed is expired without anything writing it.
    const e = (await open({ actions: ['crm.read'] })).body.session;
    await harness.deps
      .db('connection_sessions')
      .where({ id: e.sessionId })
      .update({ expires_at: harness.deps.db.raw("now() - interval '1 second'") });
    assert.equal((await call('GET', `/v1/bridge/connection-sessions/${e.sessionId}`)).body.session.status, 'expired');
    assert.ok(
      (await call('GET', '/v1/bridge/connection-sessions?status=expired')).body.sessions.some(
        (x: any) => x.sessionId === e.sessionId,
      ),
    );
    assert.ok(
      !(await call('GET', '/v1/bridge/connection-sessions?status=active')).body.sessions.some(
        (x: any) => x.sessionId === e.sessionId,
      ),
    );
    const late = await call('POST', '/v1/bridge/connectors/cs-crm/preflight', {
      action: 'crm.read',
      sessionId: e.sessionId,
    });
    assert.deepEqual([late.status, late.body.details.status], [409, 'expired']);
    assert.equal((await call('POST', `/v1/bridge/connection-sessions/${e.sessionId}/revoke`, {})).status, 409);
  });

  it("401 without a token; 404 for an unknown session, connector, and another account's", async () => {
    const s = (await open({ actions: ['crm.read'] })).body.session;
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/connection-sessions', {
          body: { connectorId: 'cs-crm', actions: ['crm.read'] },
        })
      ).status,
      401,
    );
    assert.equal((await harness.call('GET', '/v1/bridge/connection-sessions')).status, 401);
    assert.equal((await harness.call('GET', `/v1/bridge/connection-sessions/${s.sessionId}`)).status, 401);
    assert.equal(
      (await harness.call('POST', `/v1/bridge/connection-sessions/${s.sessionId}/revoke`, { body: {} })).status,
      401,
    );
    assert.equal((await call('GET', '/v1/bridge/connection-sessions/csn_missing')).status, 404);
    assert.equal((await call('POST', '/v1/bridge/connection-sessions/csn_missing/revoke', {})).status, 404);
    assert.equal((await open({ connectorId: 'nope', actions: ['crm.read'] })).status, 404);
    assert.equal(
      (await call('POST', '/v1/bridge/connectors/cs-crm/preflight', { action: 'crm.read', sessionId: 'csn_missing' }))
        .status,
      404,
    );
    assert.equal((await call('GET', `/v1/bridge/connection-sessions/${s.sessionId}`, undefined, b.token)).status, 404);
    assert.equal((await call('POST', `/v1/bridge/connection-sessions/${s.sessionId}/revoke`, {}, b.token)).status, 404);
    assert.equal(
      (await call('POST', '/v1/bridge/connection-sessions', { connectorId: 'cs-crm', actions: ['crm.read'] }, b.token))
        .status,
      404,
    );
    assert.deepEqual((await call('GET', '/v1/bridge/connection-sessions', undefined, b.token)).body.sessions, []);
    assert.equal(
      (await call('GET', `/v1/bridge/connection-sessions/${s.sessionId}`)).body.session.status,
      'active',
      'another account changed nothing',
    );
  });
});
