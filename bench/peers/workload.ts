/**
 * The one computation every peer's step does, so the engines are compared on
 * the same work: a step hashes a small JSON document `rounds` times, each
 * round over the previous digest, starting from the digest the step before
 * it returned. Pure (node:crypto only): awp's bench process may import it to
 * time the computation alone without loading any peer's dependencies.
 */
import { createHash } from 'node:crypto';

/** The three steps of the workflow, in order (node names in LangGraph, step names in DBOS). */
export const STEP_NAMES = ['one', 'two', 'three'] as const;

/** Hash rounds per step: BENCH_STEP_HASHES, 100 by default (about a tenth of a millisecond of CPU). */
export function stepRounds(env: NodeJS.ProcessEnv = process.env): number {
  const rounds = Number(env.BENCH_STEP_HASHES ?? 100);
  if (!Number.isInteger(rounds) || rounds < 0)
    throw new Error(`BENCH_STEP_HASHES must be a whole number ≥ 0, got ${env.BENCH_STEP_HASHES}`);
  return rounds;
}

/** One step: `rounds` SHA-256 hashes of a small JSON document chained on `prev`; returns the last hex digest. */
export function stepWork(runId: string, step: string, prev: string, rounds: number): string {
  let digest = prev;
  for (let i = 0; i < rounds; i++)
    digest = createHash('sha256')
      .update(JSON.stringify({ runId, step, i, prev: digest }))
      .digest('hex');
  return digest;
}

/** What a whole 3-step workflow returns for `runId`: lets a peer prove it ran every step once, in order. */
export function expectedDigest(runId: string, rounds: number): string {
  return STEP_NAMES.reduce((prev, step) => stepWork(runId, step, prev, rounds), '');
}
