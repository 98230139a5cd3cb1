import { Pool } from 'undici';
import { stepRounds } from '../../bench/peers/workload.js';
import { ACTIVE_STATUSES } from '../../jobs/orchestrator/run-state.js';
import { accountToken, benchmarkBody, drainRuns, unfinishedRuns } from './awp-client.js';
import { stats, sustained, type BenchEnv } from './env.js';
import { FAIRNESS_BACKLOG } from './verdicts.js';

/** Two tenants: A floods the service with queued runs, B runs now and then and should not wait behind A. */
export const TENANT_A = 'acct_bench_tenant_a';
export const TENANT_B = 'acct_bench_tenant_b';
/**
 * A loaded run of B starts while A still has at least this share of the backlog it had when B's loaded phase began.
 * Without the floor, a service that works strictly in order would have B's first runs wait out A's whole backlog and
 * its next ones run on an empty queue, and the p50 would hide the wait.
 */
const LOADED_SHARE = 0.1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

type RunAnswer = { status?: string; runId?: string; run?: { status?: string } };

/**
 * Milliseconds from submitting one run (sync over HTTP) until it rests `ready`. A run that outlasts the API's sync
 * wait (RUN_SYNC_WAIT_MS, it answers 202) is followed by reading it until it rests, so a long wait behind another
 * tenant is measured, not refused.
 */
async function timedRun(env: BenchEnv, token: string, body: string, timeoutMs: number): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const started = performance.now();
  const res = await fetch(`${env.url}/v1/orchestrator/run`, { method: 'POST', headers, body });
  const answer = (await res.json()) as RunAnswer;
  let status = answer.status;
  while (res.status === 202 && answer.runId && (ACTIVE_STATUSES as readonly string[]).includes(status ?? '')) {
    if (performance.now() - started > timeoutMs)
      throw new Error(`run ${answer.runId} still ${status} after ${timeoutMs} ms`);
    await sleep(100);
    const read = await fetch(`${env.url}/v1/runs/${answer.runId}`, { headers });
    status = ((await read.json()) as RunAnswer).run?.status;
  }
  if (status !== 'ready') throw new Error(`run did not finish: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  return performance.now() - started;
}

/** Submits `count` runs async (`Prefer: respond-async`) over `connections` connections, as fast as they answer. */
async function flood(env: BenchEnv, token: string, body: string, count: number, connections = 50) {
  const pool = new Pool(env.url, { connections, pipelining: 1 });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'respond-async' };
  let accepted = 0;
  let refused = 0;
  let firstRefusal: string | undefined;
  try {
    const seconds = await sustained(count, connections, async () => {
      const res = await pool.request({ method: 'POST', path: '/v1/orchestrator/run', headers, body });
      const text = await res.body.text();
      // A service that admits a tenant's runs may refuse some of a flood: that is counted, not a failure of the bench.
      if (res.statusCode === 202) accepted++;
      else {
        refused++;
        firstRefusal ??= `${res.statusCode} ${text.slice(0, 200)}`;
      }
    });
    return { accepted, refused, ...(firstRefusal ? { firstRefusal } : {}), seconds: Math.round(seconds * 10) / 10 };
  } finally {
    await pool.close();
  }
}

/**
 * Cancels the account's runs not yet at rest, then waits until none is left and the `benchmark` queue holds no job
 * (a canceled run's job is still taken, and skipped): the next section starts on an idle service.
 */
async function cancelRest(env: BenchEnv, token: string, accountId: string, timeoutMs: number) {
  const rows: Array<{ id: string }> = await env.deps
    .db('runs')
    .where({ account_id: accountId })
    .whereIn('status', [...ACTIVE_STATUSES])
    .select('id');
  const pool = new Pool(env.url, { connections: 16, pipelining: 1 });
  const headers = { authorization: `Bearer ${token}` };
  let canceled = 0;
  try {
    // 409: the run came to rest meanwhile.
    await sustained(rows.length, 16, async (i) => {
      const path = `/v1/runs/${rows[i]!.id}/cancel`;
      const res = await pool.request({ method: 'POST', path, headers });
      await res.body.text();
      if (res.statusCode === 200) canceled++;
      else if (res.statusCode !== 409) throw new Error(`cancel ${rows[i]!.id}: ${res.statusCode}`);
    });
  } finally {
    await pool.close();
  }
  const started = performance.now();
  await drainRuns(env, timeoutMs, accountId);
  const queue = env.deps.queues.queue('benchmark');
  const pending = async () =>
    Object.values(await queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed')).reduce((a, b) => a + b, 0);
  while ((await pending()) > 0) {
    if (performance.now() - started > timeoutMs) throw new Error(`benchmark queue not empty after ${timeoutMs} ms`);
    await sleep(250);
  }
  return { canceled, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/**
 * Fairness between tenants: p50 and p99 of tenant B's identical-work run (3 `benchmark` steps, sync over HTTP,
 * BENCH_FAIRNESS_RUNS (40) runs, BENCH_FAIRNESS_IN_FLIGHT (4) at a time) on an idle service, then again right
 * after tenant A submitted BENCH_FAIRNESS_QUEUED (5,000) of the same runs async, as fast as the API takes them.
 * A loaded sample counts when A still had at least a tenth of its backlog unfinished as it started (LOADED_SHARE);
 * the phase ends below that or when B has its runs. The target: B's loaded p50 at most 2× its idle p50. A's runs
 * still unfinished afterwards are canceled and their jobs drained before the next section.
 */
export async function benchFairness(env: BenchEnv) {
  const queued = Number(process.env.BENCH_FAIRNESS_QUEUED ?? FAIRNESS_BACKLOG);
  const n = Number(process.env.BENCH_FAIRNESS_RUNS ?? 40);
  const inFlight = Number(process.env.BENCH_FAIRNESS_IN_FLIGHT ?? 4);
  const timeoutMs = Number(process.env.BENCH_DRAIN_TIMEOUT_MS ?? 600_000);
  if (![queued, n, inFlight].every((v) => Number.isInteger(v) && v >= 1))
    throw new Error(
      'BENCH_FAIRNESS_QUEUED, BENCH_FAIRNESS_RUNS and BENCH_FAIRNESS_IN_FLIGHT must be whole numbers ≥ 1',
    );
  const hashes = stepRounds();
  const body = benchmarkBody(hashes);
  const a = (await accountToken(env, TENANT_A)).token;
  const b = (await accountToken(env, TENANT_B)).token;
  const runB = () => timedRun(env, b, body, timeoutMs);

  for (let w = 0; w < 5; w++) await runB();
  const idle: number[] = [];
  await sustained(n, inFlight, async () => idle.push(await runB()));

  const loaded: number[] = [];
  let started = 0;
  let backlogAtStart = 0;
  let floor = 1;
  let submitted: Awaited<ReturnType<typeof flood>> | undefined;
  let cleanup: (Awaited<ReturnType<typeof cancelRest>> & { backlogAtEnd: number }) | undefined;
  try {
    submitted = await flood(env, a, body, queued);
    backlogAtStart = await unfinishedRuns(env, TENANT_A);
    floor = Math.max(1, Math.ceil(backlogAtStart * LOADED_SHARE));
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        // Read afresh before each run: A's backlog only shrinks, and a run started on its tail is not under load.
        // `started` is checked again after the read: the other loops start runs meanwhile.
        while (started < n) {
          if ((await unfinishedRuns(env, TENANT_A)) < floor || started >= n) return;
          started++;
          loaded.push(await runB());
        }
      }),
    );
  } finally {
    const backlogAtEnd = await unfinishedRuns(env, TENANT_A);
    cleanup = { backlogAtEnd, ...(await cancelRest(env, a, TENANT_A, timeoutMs)) };
  }
  const idleStats = stats(idle);
  const loadedStats = loaded.length > 0 ? stats(loaded) : null;
  return {
    layout: env.split,
    workload: `benchmark × 3, ${hashes} SHA-256 rounds per step`,
    inFlight,
    tenantA: {
      queued,
      ...(queued !== FAIRNESS_BACKLOG
        ? { scaledDown: `${queued} runs queued, not ${FAIRNESS_BACKLOG} (BENCH_FAIRNESS_QUEUED or bench:quick)` }
        : {}),
      ...submitted,
      unfinishedWhenBStarted: backlogAtStart,
      loadedWhileUnfinishedAtLeast: floor,
      afterwards: cleanup,
    },
    tenantBIdle: idleStats,
    tenantBLoaded: loadedStats ?? {
      n: 0,
      note: "tenant A's backlog fell under its floor before B's loaded phase began",
    },
    ...(loaded.length < n && loadedStats
      ? { loadedNote: `${loaded.length} of ${n} loaded runs: A's backlog fell under its floor before B had them all` }
      : {}),
    ratios: {
      p50: loadedStats ? ratio(loadedStats.p50, idleStats.p50) : null,
      p99: loadedStats ? ratio(loadedStats.p99, idleStats.p99) : null,
    },
  };
}
