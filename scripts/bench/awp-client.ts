import { insertListings } from '../../jobs/hunt/catalog-repository.js';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { ACTIVE_STATUSES } from '../../jobs/orchestrator/run-state.js';
import { expectedDigest } from '../../jobs/benchmark/index.js';
import type { BenchEnv } from './env.js';

export const BENCH_ACCOUNT = 'acct_bench';
/** The bench's 3-step run: hunt → resolve → resolve, the route fixed so routing is not what is measured. */
export const RUN_BODY = JSON.stringify({
  request: 'find the cheapest espresso machine under $120',
  domainRoute: ['hunt', 'resolve', 'resolve'],
});

const tokens = new WeakMap<BenchEnv, Promise<string>>();

/** An account of the bench (team plan: no quota), made on first use, with a token of the default scopes. */
export async function accountToken(env: BenchEnv, accountId: string): Promise<{ token: string; made: boolean }> {
  const made = await env.deps
    .db('accounts')
    .insert({
      id: accountId,
      email: `${accountId.replace(/^acct_/, '')}@awp.local`,
      name: accountId,
      password_hash: '!',
      plan: 'team',
      status: 'active',
    })
    .onConflict('id')
    .ignore()
    .returning('id');
  const { token } = await issueToken(env.deps.db, accountId, { name: 'bench', scopes: DEFAULT_SCOPES });
  return { token, made: made.length > 0 };
}

/**
 * The bench account, its catalog (50 listings, made once so every section's hunt step searches the same catalog)
 * and a token.
 */
export function benchToken(env: BenchEnv): Promise<string> {
  let t = tokens.get(env);
  if (!t) {
    t = (async () => {
      const { token, made } = await accountToken(env, BENCH_ACCOUNT);
      if (made) {
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
      return token;
    })();
    tokens.set(env, t);
  }
  return t;
}

/**
 * The identical-work run: the peers' 3-step workflow (bench/peers) as awp's `benchmark` domain, `hashes` SHA-256
 * rounds per step, the route fixed.
 */
export const benchmarkBody = (hashes: number) =>
  JSON.stringify({
    request: 'bench',
    domainRoute: ['benchmark', 'benchmark', 'benchmark'],
    metadata: { hashes },
  });

type RunAnswer = { status?: string; runId?: string; results?: { benchmark?: { digest?: unknown } } };

async function run(env: BenchEnv, token: string, body: string): Promise<RunAnswer> {
  const res = await fetch(`${env.url}/v1/orchestrator/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const answer = (await res.json()) as RunAnswer;
  if (res.status !== 200 || answer.status !== 'ready')
    throw new Error(`run did not finish: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/** One 3-step run through `POST /v1/orchestrator/run`, answered when it rests; anything but `200 ready` throws. */
export async function runOnce(env: BenchEnv, token: string): Promise<void> {
  await run(env, token, RUN_BODY);
}

/**
 * Identical-work runs, one per call. As the peers' harness does (bench/peers/harness.ts), the first 5 (the
 * warm-ups) must return the 3-step digest of their run id, proving every step ran once, in order; later ones a
 * digest of the right length, so checking costs the client no hashing while it is measured.
 */
export function benchmarkRuns(env: BenchEnv, token: string, hashes: number): () => Promise<void> {
  const body = benchmarkBody(hashes);
  let checked = 0;
  return async () => {
    const answer = await run(env, token, body);
    const digest = answer.results?.benchmark?.digest;
    const ok =
      checked < 5
        ? digest === expectedDigest(String(answer.runId), hashes)
        : typeof digest === 'string' && digest.length === (hashes ? 64 : 0);
    checked++;
    if (!ok) throw new Error(`benchmark run ${answer.runId} returned ${JSON.stringify(digest)}, not its digest`);
  };
}

/** Runs of an account (the bench's by default) not yet at rest (async submissions still being worked through). */
export async function unfinishedRuns(env: BenchEnv, accountId = BENCH_ACCOUNT): Promise<number> {
  const row = await env.deps
    .db('runs')
    .where({ account_id: accountId })
    .whereIn('status', [...ACTIVE_STATUSES])
    .count({ n: '*' })
    .first();
  return Number(row?.n ?? 0);
}

/** Waits until every run of the account (the bench's by default) rests; returns the seconds it took. */
export async function drainRuns(env: BenchEnv, timeoutMs: number, accountId = BENCH_ACCOUNT): Promise<number> {
  const started = performance.now();
  while ((await unfinishedRuns(env, accountId)) > 0) {
    if (performance.now() - started > timeoutMs) throw new Error(`runs still unfinished after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return (performance.now() - started) / 1000;
}
