import assert from 'node:assert/strict';
import { trace } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';
import { startWeb } from '../../api/server.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import type { Stoppable } from '../../shared/lifecycle.js';
import { startTelemetry, type Telemetry } from '../../shared/telemetry/start.js';
import { contextOf, traceFields, tracingOn } from '../../shared/telemetry/spans.js';
import { startDelivery } from '../../workers/delivery.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startReceiver, until } from '../support/receiver.js';
import { seedCatalog } from '../support/runs.js';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

const VALID_PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;
/** What a span must never carry: the SQL text or a full URL (either may hold a value or a credential). */
const FORBIDDEN_KEYS = ['db.query.text', 'db.statement', 'url.full', 'url.query', 'http.url'];

/** The chain of parents from `span` up to its trace's root. */
function ancestors(span: ReceivedSpan, byId: Map<string, ReceivedSpan>): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  for (let s = byId.get(span.parentSpanId); s; s = byId.get(s.parentSpanId)) chain.push(s);
  return chain;
}

describe('traces: one run submitted over HTTP is one tree across processes', function () {
  this.timeout(120_000);
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let telemetry: Telemetry | null = null;
  let deps: Deps;
  let child: ReturnType<typeof spawnEntry> | null = null;
  const parts: Stoppable[] = [];
  const lines: string[] = [];
  const secret = 'whsec_' + randomBytes(24).toString('base64');

  before(async () => {
    otlp = await startOtlpReceiver();
    hooks = await startReceiver(() => [secret]);
  });

  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    for (const part of parts.reverse()) await part.stop().catch(() => undefined);
    await deps?.close();
    await telemetry?.stop();
    await hooks?.stop();
    await otlp?.stop();
  });

  it('request → enqueue → steps in two processes → Postgres and Redis; the webhook carries traceparent', async () => {
    // A queue prefix of its own: only the child (hunt) and this process (resolve, finalize, delivery) serve the run.
    const prefix = `{awp-traces-${randomBytes(3).toString('hex')}}`;
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, QUEUE_PREFIX: prefix };
    const config = harness.configWith({ ...otel, LOG_LEVEL: 'info' });
    telemetry = await startTelemetry(config, 'web');
    assert.ok(telemetry && tracingOn());
    deps = createDeps(config, createLogger('info', {}, { write: (line: string) => void lines.push(line) }));
    parts.push(...startWorkers(deps, ['resolve', 'orchestrator']), ...startDelivery(deps));
    const web = await startWeb(deps, 0, '127.0.0.1');
    parts.push(web);
    // The hunt worker is a real entry point in another process: `workers/domains.ts`, which starts its own telemetry.
    child = spawnEntry('workers/domains.ts', {
      ...otel,
      DATABASE_URL: config.DATABASE_URL!,
      REDIS_URL: config.REDIS_URL!,
      WORKER_QUEUES: 'hunt',
      LOG_LEVEL: 'info',
    });
    await waitForOutput(child, (o) => o.includes('"msg":"started"'));

    const { accountId, token } = await harness.account();
    await seedCatalog(accountId);
    const sub = await harness.call(
      'POST',
      '/v1/event-subscriptions',
      { token, body: { endpoint: hooks.url, events: ['run.*'], secret } },
      web.url,
    );
    assert.equal(sub.status, 201, sub.text);
    const request = 'find the cheapest espresso machine under 250 dollars';
    const submitted = await harness.call(
      'POST',
      '/v1/orchestrator/run',
      { token, body: { request, domainRoute: ['hunt', 'resolve'] }, headers: { prefer: 'respond-async' } },
      web.url,
    );
    assert.equal(submitted.status, 202, submitted.text);
    const runId = String(submitted.body.runId);
    const done = await until(
      async () => (await harness.call('GET', `/v1/runs/${runId}`, { token }, web.url)).body.run,
      (run) => run?.status === 'ready' || run?.status === 'failed',
      30_000,
    );
    assert.equal(done.status, 'ready', JSON.stringify(done));
    const hook = await until(
      () => hooks.received.find((r) => r.body.type === 'run.completed' && r.body.subject === runId),
      Boolean,
      20_000,
    );

    // Both processes flush on shutdown: the child on SIGTERM (lifecycle), this one when its telemetry stops.
    assert.equal(await stopWith(child, 'SIGTERM'), 0, child.output());
    for (const part of parts.splice(0).reverse()) await part.stop();
    await telemetry.stop();
    assert.equal(tracingOn(), false);
    assert.deepEqual(otlp.refused, []);

    const server = otlp.spans.find(
      (s) => s.name === 'POST /v1/orchestrator/run' && s.attributes['awp.account_id'] === accountId,
    );
    assert.ok(server, `no request span among ${otlp.spans.length} spans`);
    assert.equal(server.parentSpanId, '', 'the request span is the root');
    assert.equal(server.attributes['http.route'], '/v1/orchestrator/run');
    assert.equal(server.attributes['http.response.status_code'], 202);
    const tree = otlp.spans.filter((s) => s.traceId === server.traceId);
    const byId = new Map(tree.map((s) => [s.spanId, s]));
    for (const s of tree)
      if (s.parentSpanId) assert.ok(byId.has(s.parentSpanId), `${s.name}: its parent ${s.parentSpanId} is missing`);
    assert.deepEqual(
      tree.filter((s) => !s.parentSpanId).map((s) => s.name),
      ['POST /v1/orchestrator/run'],
      'one root',
    );

    // The hunt step ran in the child, the resolve step here; each under the job its enqueue made.
    const step = (domain: string) => tree.find((s) => s.name === `step ${domain}`);
    const hunt = step('hunt');
    const resolve = step('resolve');
    assert.ok(hunt && resolve, `steps missing: ${tree.map((s) => s.name).join(', ')}`);
    assert.equal(hunt.resource['awp.process'], 'worker');
    assert.equal(hunt.resource['process.pid'], child.pid);
    assert.equal(resolve.resource['awp.process'], 'web');
    for (const [s, domain] of [
      [hunt, 'hunt'],
      [resolve, 'resolve'],
    ] as const) {
      assert.equal(s.attributes['awp.run.id'], runId);
      assert.equal(s.attributes['awp.step.domain'], domain);
      assert.equal(s.attributes['awp.step.attempt'], 1);
      assert.equal(s.attributes['awp.step.outcome'], 'completed');
    }
    const huntPath = ancestors(hunt, byId).map((s) => s.name);
    assert.deepEqual(huntPath.slice(0, 2), ['process hunt', 'send hunt']);
    assert.equal(huntPath.at(-1), 'POST /v1/orchestrator/run');
    // resolve's job was enqueued by the hunt job in the other process: hand-off through the job data.
    const resolvePath = ancestors(resolve, byId);
    assert.deepEqual(
      resolvePath.slice(0, 2).map((s) => s.name),
      ['process resolve', 'send resolve'],
    );
    assert.equal(resolvePath[1]!.resource['process.pid'], child.pid, 'the hand-off was enqueued by the child');
    assert.equal(resolvePath[2]?.name, 'process hunt', 'within the hunt job, after its step');

    // Postgres and Redis calls are children within the tree: in the request, in each step, under the enqueues.
    const pg = tree.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    const redis = tree.filter((s) => s.attributes['db.system.name'] === 'redis');
    for (const parent of [server, hunt, resolve])
      assert.ok(
        pg.some((s) => ancestors(s, byId).includes(parent)),
        `no Postgres span under ${parent.name}`,
      );
    for (const s of pg) assert.match(String(s.attributes['db.operation.name']), /^[A-Z]+$/);
    assert.ok(
      pg.some((s) => String(s.attributes['db.query.summary']).startsWith('awp_')),
      'a prepared statement by name',
    );
    assert.ok(
      redis.some((s) => ancestors(s, byId)[0]?.name === 'send hunt'),
      'the enqueue sends its Redis command',
    );

    // The webhook carried a traceparent naming its POST's client span, which was exported.
    const traceparent = String(hook!.headers.traceparent ?? '');
    const m = TRACEPARENT.exec(traceparent);
    assert.ok(m, `webhook traceparent: ${traceparent}`);
    const post = otlp.spans.find((s) => s.spanId === m[2]);
    assert.ok(post, 'the webhook POST span was exported');
    assert.equal(post.traceId, m[1]);
    assert.equal(post.attributes['http.request.method'], 'POST');
    assert.equal(post.attributes['http.response.status_code'], 200);

    // No bound value or secret in any span: not the request text, the token, the webhook secret, the catalog.
    const values = otlp.spans.flatMap((s) => [...Object.values(s.attributes), ...Object.values(s.resource)]);
    const text = JSON.stringify(values);
    for (const leaked of [token, secret, secret.slice(6), request, 'espresso', 'Brewhouse', accountId + '@test.local'])
      assert.ok(!text.includes(leaked), `a span attribute holds ${leaked.slice(0, 12)}…`);
    for (const s of otlp.spans)
      for (const key of FORBIDDEN_KEYS) assert.ok(!(key in s.attributes), `${s.name} has ${key}`);

    // The access line of the request carries its trace id (pino mixin).
    const access = lines
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'request' && l.path === '/v1/orchestrator/run');
    assert.equal(access?.traceId, server.traceId);
  });

  it('with OTEL_EXPORTER_OTLP_ENDPOINT unset nothing starts and nothing is exported', async () => {
    const before = otlp.exports();
    assert.equal(harness.config.OTEL_EXPORTER_OTLP_ENDPOINT, undefined);
    assert.equal(await startTelemetry(harness.config, 'web'), null);
    assert.equal(tracingOn(), false);
    assert.deepEqual(traceFields(), {});
    const { token } = await harness.account();
    const res = await harness.call('GET', '/v1/runs', {
      token,
      headers: { traceparent: VALID_PARENT },
    });
    assert.equal(res.status, 200);
    assert.equal(trace.getSpanContext(contextOf(res.headers.get('traceparent') ?? VALID_PARENT)), undefined);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(otlp.exports(), before, 'no export was made');
  });
});
