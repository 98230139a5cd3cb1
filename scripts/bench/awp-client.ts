import { insertListings } from '../../jobs/hunt/catalog-repository.js';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { ACTIVE_STATUSES } from '../../jobs/orchestrator/run-state.js';
import type { BenchEnv } from './env.js';

export const BENCH_ACCOUNT = 'acct_bench';
/** The bench's 3-step run: hunt → resolve → resolve, the route fixed so routing is not what is measured. */
export const RUN_BODY = JSON.stringify({
  request: 'find the cheapest espresso machine under $120',
  domainRoute: ['hunt', 'resolve', 'resolve'],
});

const tokens = new WeakMap<BenchEnv, Promise<string>>();

/**
 * The bench account (team plan: no quota), its catalog (50 listings, made
 * once so every section's hunt step searches the same catalog) and a token.
 */
export function benchToken(env: BenchEnv): Promise<string> {
  let t = tokens.get(env);
  if (!t) {
    t = (async () => {
      const made = await env.deps
        .db('accounts')
        .insert({
          id: BENCH_ACCOUNT,
          email: 'bench@awp.local',
          name: 'bench',
          password_hash: '!',
          plan: 'team',
          status: 'active',
        })
        .onConflict('id')
        .ignore()
        .returning('id');
      if (made.length > 0) {
        await insertListings(
          env.deps.db,
          BENCH_ACCOUNT,
          Array.from({ length: 50 }, (_, i) => ({
            title: `Espresso machine model ${i}`,
            price: 100 + i,
            fees: 0,
            currency: 'USD',
            vendor: 'Bench',
            url: `https://bench.example/${i}`,
            tags: ['coffee'],
          })),
        );
      }
      return (await issueToken(env.deps.db, BENCH_ACCOUNT, { name: 'bench', scopes: DEFAULT_SCOPES })).token;
    })();
    tokens.set(env, t);
  }
  return t;
}

/** One 3-step run through `POST /v1/orchestrator/run`, answered when it rests; anything but `200 ready` throws. */
export async function runOnce(env: BenchEnv, token: string): Promise<void> {
  const res = await fetch(`${env.url}/v1/orchestrator/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: RUN_BODY,
  });
  const body = (await res.json()) as { status?: string };
  if (res.status !== 200 || body.status !== 'ready')
    throw new Error(`run did not finish: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
}

/** Runs of the bench account not yet at rest (async submissions still being worked through). */
export async function unfinishedRuns(env: BenchEnv): Promise<number> {
  const row = await env.deps
    .db('runs')
    .where({ account_id: BENCH_ACCOUNT })
    .whereIn('status', [...ACTIVE_STATUSES])
    .count({ n: '*' })
    .first();
  return Number(row?.n ?? 0);
}

/** Waits until every run of the bench account rests; returns the seconds it took. */
export async function drainRuns(env: BenchEnv, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while ((await unfinishedRuns(env)) > 0) {
    if (performance.now() - started > timeoutMs) throw new Error(`runs still unfinished after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return (performance.now() - started) / 1000;
}
