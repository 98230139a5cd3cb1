import { Queue, type ConnectionOptions } from 'bullmq';
import { freePort } from '../local-services.js';
import { benchToken, drainRuns, RUN_BODY } from './awp-client.js';
import type { BenchEnv } from './env.js';
import { load, type LoadResult } from './load.js';
import { answers200, rssMb, spawnNode, waitReady } from './processes.js';

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** Runs a bare server (scripts/bench/bare-server.ts) in its own process for the length of `fn`. */
async function withBare<T>(
  env: BenchEnv,
  mode: 'hello' | 'submit',
  fn: (origin: string, idleRss: number | null) => Promise<T>,
): Promise<T> {
  const port = await freePort();
  const bare = spawnNode(
    `bare-${mode}`,
    'scripts/bench/bare-server.ts',
    env.childEnv({ BARE_MODE: mode, BARE_PORT: String(port) }),
  );
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitReady(bare, () => answers200(`${origin}/`));
    await new Promise((r) => setTimeout(r, 1000));
    return await fn(origin, rssMb(bare.pid));
  } finally {
    await bare.stop();
  }
}

function check(name: string, r: LoadResult): LoadResult {
  // A few failures under load are reported; a server that mostly fails is not a figure.
  if (r.errors > r.requests * 0.01)
    throw new Error(`${name}: ${r.errors} of ${r.requests} requests failed (${r.firstError})`);
  return r;
}

/**
 * Async submissions/s (`Prefer: respond-async`, BENCH_CONNECTIONS=50) against a
 * bare Koa + ajv + pg INSERT + queue.add server, each in its own process,
 * loaded the same way in the same run. awp's workers keep working through
 * the submitted runs meanwhile (as they would in production); the section
 * then waits until every run rests and reports how long that took.
 */
export async function benchAsync(env: BenchEnv) {
  const bare = await withBare(env, 'submit', async (origin) =>
    check(
      'bare submit',
      await load(origin, {
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json' },
        body: RUN_BODY,
        expect: 202,
      }),
    ),
  );
  const queue = new Queue('bare-submit', {
    connection: env.deps.redis as unknown as ConnectionOptions,
    prefix: '{bare-bench}',
  });
  await queue.obliterate({ force: true });
  await queue.close();
  await env.deps.db.raw('DROP TABLE IF EXISTS bare_submissions');

  const token = await benchToken(env);
  const started = performance.now();
  const awp = await env.window('async.submissions', async () =>
    check(
      'awp async',
      await load(env.url, {
        method: 'POST',
        path: '/v1/orchestrator/run',
        body: RUN_BODY,
        expect: 202,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'respond-async' },
      }),
    ),
  );
  const drainSeconds = await drainRuns(env, Number(process.env.BENCH_DRAIN_TIMEOUT_MS ?? 600_000));
  return {
    layout: env.split,
    bareKoaAjvPgInsertQueueAdd: bare,
    awpAsyncSubmissions: awp,
    afterLoad: {
      drainSeconds: Math.round(drainSeconds * 10) / 10,
      note: 'seconds after the load stopped until every submitted run rested',
    },
    loadAndDrainSeconds: Math.round((performance.now() - started) / 100) / 10,
    ratio: ratio(awp.perSec, bare.perSec),
  };
}

/** `GET /healthz` (Redis and Postgres checked) under the same load as a bare Koa hello world. */
export async function benchHealthz(env: BenchEnv) {
  let bareIdleRssMb: number | null = null;
  const bare = await withBare(env, 'hello', async (origin, idle) => {
    bareIdleRssMb = idle;
    return check('bare hello', await load(origin, { method: 'GET', path: '/', expect: 200 }));
  });
  const awp = check('awp healthz', await load(env.url, { method: 'GET', path: '/healthz', expect: 200 }));
  // The hello world's idle RSS is the floor of any process started the same way (node --import tsx, Koa).
  return {
    layout: env.split,
    bareKoaHello: bare,
    awpHealthz: awp,
    ratio: ratio(awp.perSec, bare.perSec),
    bareKoaHelloIdleRssMb: bareIdleRssMb,
  };
}
