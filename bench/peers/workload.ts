/**
 * The one computation every peer's step does: awp's `benchmark` domain's
 * step (jobs/benchmark/logic.ts, imported, not copied), so awp and the peers
 * are compared on the same work byte for byte: a step hashes a small JSON
 * document `rounds` times, each round over the previous digest, starting
 * from the digest the step before it returned. Pure (node:crypto only):
 * awp's bench process may import it to time the computation alone, and a
 * peer's process loads none of awp's app with it.
 */
import { randomUUID } from 'node:crypto';

export { expectedDigest, STEP_NAMES, stepWork } from '../../jobs/benchmark/index.js';

/**
 * Hash rounds per step: BENCH_STEP_HASHES, 100 by default (about a tenth of a millisecond of CPU), at most 10,000
 * (what awp's benchmark step accepts: shared/schemas/benchmark.ts, not imported so that no schema library loads here).
 */
export function stepRounds(env: NodeJS.ProcessEnv = process.env): number {
  const rounds = Number(env.BENCH_STEP_HASHES ?? 100);
  if (!Number.isInteger(rounds) || rounds < 0 || rounds > 10_000)
    throw new Error(`BENCH_STEP_HASHES must be a whole number from 0 to 10,000, got ${env.BENCH_STEP_HASHES}`);
  return rounds;
}

/**
 * A workflow id shaped like awp's run ids (`run_` and 32 hex digits): the id is part of the hashed document, so
 * the peers hash documents of the same length as awp's benchmark steps do.
 */
export const workflowId = (): string => `run_${randomUUID().replace(/-/g, '')}`;
