import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { requestFingerprint } from '../../jobs/accounts/idempotency.js';
import { defineRoute } from '../../shared/http/route-spec.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { ndjson, seedCatalog } from '../support/runs.js';

/**
 * Issue 8 §5: streams skip idempotency, a dead request's claim expires, canonical JSON replays, replays go to the first
 * token only.
 */
describe('idempotency keys', () => {
  const keyRow = (accountId: string, key: string) =>
    harness.deps.db('idempotency_keys').where({ account_id: accountId, key }).first();

  it('stream: true skips the key: the same key streams again, and nothing is claimed', async () => {
    const a = await harness.account();
    await seedCatalog(a.accountId);
    const headers = { 'idempotency-key': `stream-${a.accountId}` };
    const body = { request: 'find an espresso machine under $250', domainRoute: ['hunt'], stream: true };
    for (let i = 0; i < 2; i++) {
      const res = await harness.call('POST', '/v1/orchestrator/run', { token: a.token, body, headers });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('idempotent-replayed'), null);
      assert.equal(ndjson(res.text).at(-1).type, 'final');
    }
    assert.equal(await keyRow(a.accountId, headers['idempotency-key']), undefined);
    // The key is free for a non-streaming request afterwards.
    const plain = await harness.call('POST', '/v1/orchestrator/run', {
      token: a.token,
      body: { ...body, stream: false },
      headers,
    });
    assert.equal(plain.status, 200, plain.text);
  });

  it('a claim left by a request that died expires after its lease; a live claim is 409', async () => {
    const a = await harness.account();
    const body = { type: 'invoice.paid', payload: { n: 1 } };
    const hash = requestFingerprint('POST', '/v1/events', body);
    // What a process that crashed mid-request leaves behind: a claim with no answer, made two minutes ago.
    await harness.deps.db.raw(
      `INSERT INTO idempotency_keys (account_id, key, request_hash, created_at) VALUES (?, 'dead', ?, now() ` +
        `- interval '2 minutes')`,
      [a.accountId, hash],
    );
    const res = await harness.call('POST', '/v1/events', {
      token: a.token,
      body,
      headers: { 'idempotency-key': 'dead' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((await keyRow(a.accountId, 'dead')).status_code, 201);

    // A claim made just now is still within its lease: the key stays taken.
    await harness.deps.db('idempotency_keys').insert({ account_id: a.accountId, key: 'alive', request_hash: hash });
    const busy = await harness.call('POST', '/v1/events', {
      token: a.token,
      body,
      headers: { 'idempotency-key': 'alive' },
    });
    assert.equal(busy.status, 409);
    assert.equal(
      await harness.deps
        .db('events')
        .where({ account_id: a.accountId })
        .count()
        .first()
        .then((r: any) => Number(r.count)),
      1,
    );
  });

  it('a running request renews its claim, so a long request keeps its key', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const slow = defineRoute({
      method: 'POST',
      path: '/v1/test/slow',
      tag: 'test',
      auth: 'bearer',
      summary: 'waits for the test',
      body: Type.Object({}),
      handler: async () => {
        await gate;
        return { ok: true };
      },
    });
    const app = await startExtraApp({ IDEMPOTENCY_LEASE_SECONDS: '3' }, [slow]);
    try {
      const a = await harness.account();
      const headers = { 'idempotency-key': 'long' };
      const first = harness.call('POST', '/v1/test/slow', { token: a.token, body: {}, headers }, app.url);
      let initial: Date | undefined;
      for (let i = 0; i < 200 && !initial; i++) {
        initial = (await keyRow(a.accountId, 'long'))?.claimed_until;
        if (!initial) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(initial, 'the request claimed its key');
      let renewed = false;
      for (let i = 0; i < 400 && !renewed; i++) {
        renewed = (await keyRow(a.accountId, 'long')).claimed_until > initial;
        if (!renewed) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(renewed, 'the claim was extended while the request ran');
      assert.equal(
        (await harness.call('POST', '/v1/test/slow', { token: a.token, body: {}, headers }, app.url)).status,
        409,
      );
      open();
      assert.equal((await first).status, 200);
      const replay = await harness.call('POST', '/v1/test/slow', { token: a.token, body: {}, headers }, app.url);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    } finally {
      open();
      await app.stop();
    }
  });

  it('the same JSON with keys in another order and other spacing replays; a different value is 409', async () => {
    const a = await harness.account();
    const headers = { 'idempotency-key': 'canon', 'content-type': 'application/json' };
    const first = await harness.call('POST', '/v1/events', {
      token: a.token,
      headers,
      raw: '{"type":"invoice.paid","payload":{"a":1,"b":[1,2],"c":{"x":"é","y":null}}}',
    });
    assert.equal(first.status, 201, first.text);
    const second = await harness.call('POST', '/v1/events', {
      token: a.token,
      headers,
      raw: '{ "payload": { "c": { "y": null, "x": "\\u00e9" }, "b": [1, 2], "a": 1.0 },\n "type": "invoice.paid" }',
    });
    assert.equal(second.status, 201, second.text);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.body.event.eventId, first.body.event.eventId);
    const reordered = await harness.call('POST', '/v1/events', {
      token: a.token,
      headers,
      raw: '{"type":"invoice.paid","payload":{"a":1,"b":[2,1],"c":{"x":"é","y":null}}}',
    });
    assert.equal(reordered.status, 409, 'array order is part of the request');
    const deep = await harness.call('POST', '/v1/events', {
      token: a.token,
      headers: { ...headers, 'idempotency-key': 'deep' },
      raw: `{"type":"invoice.paid","payload":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
    });
    assert.ok(
      deep.status < 500,
      `a deeply nested body is bad input, not a server fault: ${deep.status} ${deep.text.slice(0, 200)}`,
    );
  });

  it('a secret in the answer of a route not marked returnsSecret is not stored either', async () => {
    const minted = `awp_${'x'.repeat(43)}`;
    const leaky = defineRoute({
      method: 'POST',
      path: '/v1/test/leaky',
      tag: 'test',
      auth: 'bearer',
      summary: 'forgot returnsSecret',
      body: Type.Object({}),
      handler: () => ({ ok: true, secret: minted }),
    });
    const app = await startExtraApp({}, [leaky]);
    try {
      const a = await harness.account();
      const headers = { 'idempotency-key': 'leaky' };
      assert.equal(
        (await harness.call('POST', '/v1/test/leaky', { token: a.token, body: {}, headers }, app.url)).body.secret,
        minted,
      );
      assert.ok(!JSON.stringify(await keyRow(a.accountId, 'leaky')).includes(minted));
      const replay = await harness.call('POST', '/v1/test/leaky', { token: a.token, body: {}, headers }, app.url);
      assert.deepEqual([replay.status, replay.body.details?.reason], [409, 'secretShownOnce']);
    } finally {
      await app.stop();
    }
  });

  it('a replay goes only to the token that made the first request', async () => {
    const a = await harness.account();
    const other = await harness.call('POST', '/v1/tokens', { token: a.token, body: { name: 'other' } });
    const headers = { 'idempotency-key': 'mine' };
    const body = { type: 'invoice.paid', payload: { private: 'for the first token' } };
    const first = await harness.call('POST', '/v1/events', { token: a.token, body, headers });
    assert.equal(first.status, 201);
    const stranger = await harness.call('POST', '/v1/events', { token: other.body.token, body, headers });
    assert.equal(stranger.status, 409, stranger.text);
    assert.match(stranger.body.message, /another token/);
    assert.ok(!stranger.text.includes(first.body.event.eventId));
    const own = await harness.call('POST', '/v1/events', { token: a.token, body, headers });
    assert.equal(own.headers.get('idempotent-replayed'), 'true');
    assert.equal(own.body.event.eventId, first.body.event.eventId);
  });
});
