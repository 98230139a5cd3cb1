import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { buildApp } from '../../api/app.js';
import { ALL_ROUTES } from '../../api/routes/index.js';
import { defineRoute } from '../../shared/http/route-spec.js';
import { koaListener } from '../../shared/http/koa-listener.js';
import { loadConfig } from '../../shared/config.js';
import { createDeps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import {
  checkSecretRef,
  isSecretRef,
  limitRecentSecrets,
  looksLikeLiteralSecret,
  parseSecretRef,
  redactSecrets,
  rememberedSecrets,
  rememberSecret,
  requireSecret,
  resolveSecret,
  SecretRefRefused,
} from '../../shared/secrets.js';
import { harness } from '../support/harness.js';

const scope = { prefix: 'AWP_SECRET_' };

describe('secret references', () => {
  it('accepts env:NAME only inside the prefix; everything else is out of bounds with a reason', () => {
    assert.deepEqual(checkSecretRef('env:AWP_SECRET_STRIPE', scope), {
      ok: true,
      ref: { scheme: 'env', name: 'AWP_SECRET_STRIPE', ref: 'env:AWP_SECRET_STRIPE' },
    });
    const problems = [
      'env:DATABASE_URL',
      'env:AWP_SECRET_',
      'vault:kv/stripe',
      'env:1BAD',
      'env:',
      'sk-proj-abcdefghijklmnopqrstuvwx',
      'hello',
      '',
      42,
    ].map((v) => {
      const c = checkSecretRef(v, scope);
      return c.ok ? 'ok' : c.problem;
    });
    assert.deepEqual(problems, [
      'outsidePrefix',
      'outsidePrefix',
      'unsupportedScheme',
      'malformed',
      'malformed',
      'literalSecret',
      'notReference',
      'malformed',
      'malformed',
    ]);
    const outside = checkSecretRef('env:DATABASE_URL', scope);
    assert.ok(
      !outside.ok &&
        /env:DATABASE_URL is out of bounds: only environment variables starting with AWP_SECRET_/.test(outside.message),
    );
    assert.ok(isSecretRef('env:DATABASE_URL') && !isSecretRef('DATABASE_URL'));
    assert.equal(checkSecretRef('env:MY_TOKEN', { prefix: 'MY_' }).ok, true); // SECRET_ENV_PREFIX is honoured
  });

  it('refusals are policyViolation AppErrors that never repeat a value that failed to parse', () => {
    const pasted = 'ghp_' + 'Ab1'.repeat(12);
    for (const input of [pasted, `vault:${pasted}`, `env:${pasted}-x`, `env:lower_${pasted}`]) {
      assert.throws(
        () => parseSecretRef(input, scope),
        (err) => {
          assert.ok(err instanceof SecretRefRefused && err instanceof AppError);
          assert.equal(err.code, 'policyViolation');
          assert.ok(!JSON.stringify({ m: err.message, d: err.details, s: err.stack }).includes(pasted), err.message);
          return true;
        },
      );
    }
  });

  it('tells a pasted credential from a reference', () => {
    for (const v of [
      'sk_live_51HxYz',
      'AKIAIOSFODNN7EXAMPLE',
      'Bearer abc.def',
      'https://u:p4ss@db.example.com/x',
      'Zk9xT2pQ7vLm3RwY8sNb1cHd',
      'eyJhbGciOi.eyJzdWIiOiIx.sig',
    ])
      assert.ok(looksLikeLiteralSecret(v), v);
    for (const v of ['env:AWP_SECRET_X', 'my stripe key', 'production', 'AWP_SECRET_STRIPE'])
      assert.ok(!looksLikeLiteralSecret(v), v);
  });

  it(
    'resolves on the server: the value when set, set: false when missing or empty; require names only the ' +
      'reference',
    () => {
      const env = { AWP_SECRET_SET: 'value-123456', AWP_SECRET_EMPTY: '', DATABASE_URL: 'postgres://x' };
      const set = resolveSecret('env:AWP_SECRET_SET', { ...scope, env });
      assert.deepEqual(set, {
        set: true,
        ref: { scheme: 'env', name: 'AWP_SECRET_SET', ref: 'env:AWP_SECRET_SET' },
        value: 'value-123456',
      });
      assert.equal(resolveSecret('env:AWP_SECRET_EMPTY', { ...scope, env }).set, false);
      assert.equal(resolveSecret('env:AWP_SECRET_MISSING', { ...scope, env }).set, false);
      assert.throws(() => resolveSecret('env:DATABASE_URL', { ...scope, env }), SecretRefRefused);
      assert.throws(
        () => requireSecret('env:AWP_SECRET_MISSING', { ...scope, env }),
        (err) =>
          err instanceof AppError &&
          err.code === 'policyViolation' &&
          err.message === 'env:AWP_SECRET_MISSING is not set on this server',
      );
    },
  );

  it('config: SECRET_ENV_PREFIX defaults to AWP_SECRET_ and refuses an empty-ish prefix', () => {
    assert.equal(loadConfig({}).SECRET_ENV_PREFIX, 'AWP_SECRET_');
    assert.equal(loadConfig({ SECRET_ENV_PREFIX: 'ACME_' }).SECRET_ENV_PREFIX, 'ACME_');
    assert.throws(() => loadConfig({ SECRET_ENV_PREFIX: 'A' }), /SECRET_ENV_PREFIX/);
  });
});

describe('a resolved secret never reaches a log line, a response or an error message', () => {
  // A quote and a backslash too: JSON escapes them in a log line, and the escaped form must be caught as well.
  const value = `s3cr3t"\\${randomBytes(12).toString('hex')}`;
  const escaped = JSON.stringify(value).slice(1, -1);
  const env = { AWP_SECRET_LEAK_TEST: value };
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const log = createLogger('debug', {}, sink);
  const leaks = (text: string) => text.includes(value) || text.includes(escaped) || text.includes(value.slice(8));

  const testRoutes = [
    defineRoute({
      method: 'POST',
      path: '/test/secret/upstream-refused',
      tag: 'test',
      auth: 'public',
      summary: 'client error quoting the secret',
      handler: () => {
        const key = requireSecret('env:AWP_SECRET_LEAK_TEST', { ...scope, env });
        throw new AppError('invalidPayload', `upstream refused key ${key}`, {
          sent: { authorization: `Bearer ${key}` },
          list: [key],
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/test/secret/crash',
      tag: 'test',
      auth: 'public',
      summary: 'internal error quoting the secret',
      handler: () => {
        throw new Error(`driver failed with ${requireSecret('env:AWP_SECRET_LEAK_TEST', { ...scope, env })}`);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/test/secret/check',
      tag: 'test',
      auth: 'public',
      summary: 'validates a reference',
      handler: ({ body }) => ({ ok: true, ref: parseSecretRef((body as { ref?: unknown }).ref, scope).ref }),
    }),
  ];

  let server: http.Server;
  let base = '';
  let deps: ReturnType<typeof createDeps>;
  before(async () => {
    deps = createDeps(harness.configWith({ LOG_LEVEL: 'debug' }), log);
    server = http.createServer(koaListener(buildApp(deps, [...ALL_ROUTES, ...testRoutes])));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await deps.close();
  });

  it('is masked in log lines written by the real pino logger, whatever field or message carries it', () => {
    assert.equal(resolveSecret('env:AWP_SECRET_LEAK_TEST', { ...scope, env }).set, true);
    lines.length = 0;
    log.info({ upstream: { body: `key ${value} is revoked` } }, 'upstream answered');
    log.warn(`retrying with ${value}`);
    log.error({ err: new Error(`connect failed for ${value}`) }, 'connector failed');
    log.child({ runId: 'run_1' }).info({ deep: { deeper: { deepest: [value] } } }, 'nested');
    try {
      parseSecretRef(value, scope); // the secret pasted where a reference belongs
    } catch (err) {
      log.warn({ err }, 'refused reference');
    }
    const out = lines.join('');
    assert.equal(lines.length, 5);
    assert.ok(!leaks(out), out);
    assert.equal(out.split('[redacted]').length - 1 >= 5, true, out); // the lines are there, masked
    assert.equal(redactSecrets(`a ${value} b`), 'a [redacted] b');
  });

  it("is masked in a client error's message and details, and in the log lines of the request", async () => {
    lines.length = 0;
    const res = await fetch(`${base}/test/secret/upstream-refused`, { method: 'POST', body: '{}' });
    const text = await res.text();
    assert.equal(res.status, 400);
    assert.ok(!leaks(text), text);
    const body = JSON.parse(text);
    assert.equal(body.message, 'upstream refused key [redacted]');
    assert.deepEqual(body.details, { sent: { authorization: 'Bearer [redacted]' }, list: ['[redacted]'] });
    assert.ok(!leaks(lines.join('')), lines.join(''));
    assert.ok(
      lines.some((l) => l.includes('request refused')),
      'the refusal was logged',
    );
  });

  it('an internal error carrying it answers 500 without internals, and its logged stack is masked', async () => {
    lines.length = 0;
    const res = await fetch(`${base}/test/secret/crash`, { method: 'POST', body: '{}' });
    const text = await res.text();
    assert.equal(res.status, 500);
    assert.ok(!leaks(text), text);
    const out = lines.join('');
    assert.match(out, /driver failed with \[redacted\]/);
    assert.ok(!leaks(out), out);
  });

  it('a secret pasted as a reference is refused (422 literalSecret) without being echoed', async () => {
    lines.length = 0;
    const res = await fetch(`${base}/test/secret/check`, { method: 'POST', body: JSON.stringify({ ref: value }) });
    const text = await res.text();
    assert.equal(res.status, 422);
    assert.equal(JSON.parse(text).details.problem, 'literalSecret');
    assert.ok(!leaks(text) && !leaks(lines.join('')), text);
    const ok = await fetch(`${base}/test/secret/check`, {
      method: 'POST',
      body: JSON.stringify({ ref: 'env:AWP_SECRET_LEAK_TEST' }),
    });
    assert.deepEqual(await ok.json(), { ok: true, ref: 'env:AWP_SECRET_LEAK_TEST' });
  });
});

describe('the masked secrets of a process stay bounded', () => {
  afterEach(() => limitRecentSecrets());
  const masked = (v: string) => redactSecrets(`x ${v} y`) === 'x [redacted] y';

  it('keeps the most recently used vault values and tokens, however many pass through', () => {
    const tag = randomBytes(4).toString('hex');
    const v = (i: number) => `recent-${tag}-${i}`;
    limitRecentSecrets(3);
    for (let i = 0; i < 10; i++) rememberSecret(v(i));
    assert.equal(rememberedSecrets().recent, 3);
    assert.ok(masked(v(9)) && masked(v(7)));
    rememberSecret(v(7)); // used again: renewed
    rememberSecret(v(10));
    rememberSecret(v(11));
    assert.ok(masked(v(7)), 'a value in use stays masked');
    assert.ok(!masked(v(8)), 'the least recently used was forgotten');
    assert.equal(rememberedSecrets().recent, 3);
  });

  it("never forgets the process's own: env references and lasting values", () => {
    const tag = randomBytes(4).toString('hex');
    const env = { AWP_SECRET_BOUND: `env-${tag}` };
    resolveSecret('env:AWP_SECRET_BOUND', { ...scope, env });
    rememberSecret(`lasting-${tag}`, 'lasting');
    limitRecentSecrets(2);
    for (let i = 0; i < 10; i++) rememberSecret(`recent-${tag}-${i}`);
    assert.ok(masked(`env-${tag}`));
    assert.ok(masked(`lasting-${tag}`));
  });
});
