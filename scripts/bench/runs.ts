import { FlowProducer, QueueEvents, Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { insertListings } from '../../shared/db/catalog.js';
import { issueToken } from '../../shared/auth/issue-token.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { latencyAndRate, type benchEnv } from './env.js';

type Env = Awaited<ReturnType<typeof benchEnv>>;

/** A bare BullMQ 3-step chain (3 queues, trivial processors, root on a 4th): the primitive the run engine is built on. */
async function bareFlows(redisUrl: string, n: number, total: number) {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null }) as unknown as ConnectionOptions;
  const prefix = '{bare-bench}';
  const names = ['bare-a', 'bare-b', 'bare-c', 'bare-root'];
  const workers = names.map((name) => new Worker(name, async (job) => ({ step: job.name, at: Date.now() }), { connection, prefix, concurrency: 16 }));
  const events = new QueueEvents('bare-root', { connection, prefix });
  await events.waitUntilReady();
  const flows = new FlowProducer({ connection, prefix });
  flows.setMaxListeners(1000);
  let i = 0;
  const once = async () => {
    const id = `f${i++}`;
    const tree = await flows.add({ name: 'root', queueName: 'bare-root', opts: { jobId: id }, children: [{ name: 'c', queueName: 'bare-c', children: [{ name: 'b', queueName: 'bare-b', children: [{ name: 'a', queueName: 'bare-a' }] }] }] });
    await tree.job.waitUntilFinished(events, 30_000);
  };
  const result = await latencyAndRate(once, n, total);
  await flows.close();
  await events.close();
  await Promise.all(workers.map((w) => w.close()));
  (connection as unknown as Redis).disconnect();
  return result;
}

/** The same shape through awp: POST /v1/orchestrator/run (hunt → resolve → resolve), answered when the run rests. */
async function awpRuns(env: Env, n: number, total: number) {
  const accountId = 'acct_bench';
  await env.deps.db('accounts').insert({ id: accountId, email: 'bench@awp.local', name: 'bench', password_hash: '!', plan: 'team', status: 'active' }).onConflict('id').ignore();
  await insertListings(env.deps.db, accountId, Array.from({ length: 50 }, (_, i) => ({ title: `Espresso machine model ${i}`, price: 100 + i, fees: 0, currency: 'USD', vendor: 'Bench', url: `https://bench.example/${i}`, tags: ['coffee'] })));
  const { token } = await issueToken(env.deps.db, accountId, { name: 'bench', scopes: DEFAULT_SCOPES });
  const once = async () => {
    const res = await fetch(`${env.url}/v1/orchestrator/run`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ request: 'find an espresso machine under $120', domainRoute: ['hunt', 'resolve', 'resolve'] }) });
    const body = (await res.json()) as { status?: string };
    if (res.status !== 200 || body.status !== 'ready') throw new Error(`run did not finish: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  };
  return latencyAndRate(once, n, total);
}

export async function benchRuns(env: Env, n = Number(process.env.BENCH_N ?? 100), total = Number(process.env.BENCH_TOTAL ?? 300)) {
  const bare = await bareFlows(env.redisUrl, n, total);
  const awp = await awpRuns(env, n, total);
  return {
    bareBullmq3StepFlow: bare,
    awp3StepRun: awp,
    ratios: {
      latencyP50: Math.round((awp.latency.p50 / bare.latency.p50) * 100) / 100,
      latencyP99: Math.round((awp.latency.p99 / bare.latency.p99) * 100) / 100,
      throughput: Math.round((awp.perSec / bare.perSec) * 100) / 100,
    },
  };
}
