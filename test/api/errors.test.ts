import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../shared/http/route-spec.js';
import { AppError, ERROR_STATUS, type ErrorCode } from '../../shared/errors.js';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';

/** Test-only route that throws the error it is asked for, through the real middleware stack. */
const thrower = defineRoute({
  method: 'POST',
  path: '/test/throw',
  tag: 'test',
  auth: 'public',
  summary: 'throws',
  body: Type.Object({ code: Type.String() }),
  handler: ({ body }) => {
    if (body.code === 'crash') throw new Error('secret internals: password=hunter2');
    throw new AppError(body.code as ErrorCode, `thrown ${body.code}`);
  },
});

function assertEnvelope(body: any, code: string) {
  assert.equal(body.ok, false);
  assert.equal(body.error, code);
  assert.equal(typeof body.message, 'string');
  assert.equal(typeof body.requestId, 'string');
  assert.ok(!('stack' in body));
}

describe('error envelope', () => {
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  before(async () => {
    app = await startExtraApp({}, [thrower]);
  });
  after(() => app.stop());

  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    if (code === 'internalError') continue;
    it(`maps ${code} to HTTP ${status}`, async () => {
      const res = await harness.call('POST', '/test/throw', { body: { code } }, app.url);
      assert.equal(res.status, status);
      assertEnvelope(res.body, code);
      assert.equal(res.body.message, `thrown ${code}`);
    });
  }

  it('turns an unexpected error into 500 internalError without internals', async () => {
    const res = await harness.call('POST', '/test/throw', { body: { code: 'crash' } }, app.url);
    assert.equal(res.status, 500);
    assertEnvelope(res.body, 'internalError');
    assert.ok(!res.text.includes('hunter2'));
  });

  it('unknown route is 404 notFound; wrong method is 405', async () => {
    const missing = await harness.call('GET', '/v1/nothing-here');
    assert.equal(missing.status, 404);
    assertEnvelope(missing.body, 'notFound');
    const wrong = await harness.call('DELETE', '/v1/manifest');
    assert.equal(wrong.status, 405);
    assertEnvelope(wrong.body, 'methodNotAllowed');
  });

  it('malformed JSON is 400 invalidPayload; an array body is 400', async () => {
    const { token } = await harness.account();
    const res = await harness.call('POST', '/v1/handshake', {
      token,
      raw: '{"domains": [',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assertEnvelope(res.body, 'invalidPayload');
    const arr = await harness.call('POST', '/v1/handshake', { token, body: ['hunt'] });
    assert.equal(arr.status, 400);
  });

  it('a body over MAX_BODY_BYTES is 413', async () => {
    const { token } = await harness.account();
    const res = await harness.call('POST', '/v1/handshake', {
      token,
      body: { domains: ['hunt'], clientId: 'x'.repeat(1_100_000) },
    });
    assert.equal(res.status, 413);
    assertEnvelope(res.body, 'payloadTooLarge');
  });

  it('a route that takes files reads past MAX_BODY_BYTES (an inbox answer); no other route does', async () => {
    const { token } = await harness.account();
    const big = { action: 'proxyOutcome', data: { note: 'x'.repeat(2_000_000) } };
    const tasks = await harness.call('POST', '/v1/tasks', { token, body: { title: 't', note: big.data.note } });
    assert.equal(tasks.status, 413, 'a 2 MB body is refused where no file is taken');
    const inbox = await harness.call('POST', '/v1/inbox/prx_unknown/answer', { token, body: big });
    assert.equal(inbox.status, 404, `read whole, then the unknown item is named: ${inbox.text.slice(0, 200)}`);
    const huge = await harness.call('POST', '/v1/inbox/prx_unknown/answer', {
      token,
      body: { ...big, data: { note: 'x'.repeat(9_000_000) } },
    });
    assert.equal(huge.status, 413, 'past its own limit an inbox answer is refused too');
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const mine = await harness.call('GET', '/v1/nothing', { headers: { 'x-request-id': 'req-abc.123' } });
    assert.equal(mine.headers.get('x-request-id'), 'req-abc.123');
    assert.equal(mine.body.requestId, 'req-abc.123');
    const made = await harness.call('GET', '/v1/nothing', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.notEqual(made.headers.get('x-request-id'), 'bad id with spaces');
  });

  it('healthz answers 503 naming the dependency that is down', async () => {
    const broken = await startExtraApp({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const res = await harness.call('GET', '/healthz', {}, broken.url);
      assert.equal(res.status, 503);
      assertEnvelope(res.body, 'unavailable');
      assert.match(res.body.message, /redis/);
      assert.deepEqual(res.body.details.checks, { postgres: 'up', redis: 'down' });
    } finally {
      await broken.stop();
    }
  });
});
