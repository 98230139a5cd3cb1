/**
 * The one computation of the `benchmark` domain's step, and of every peer's
 * step in bench/peers (its workload.ts imports it from here), so awp and the
 * peers are compared on the same work: a step hashes a small JSON document
 * `rounds` times, each round over the previous digest, starting from the
 * digest the step before it returned. Pure (node:crypto only): a peer's
 * process loads it without loading awp.
 */
import { createHash } from 'node:crypto';

/** The three steps of the workflow, in order (node names in LangGraph, step names in DBOS). */
export const STEP_NAMES = ['one', 'two', 'three'] as const;

/** The name of the step at `position` (0-based) in a chain: the peers' names, then `step4`, `step5`, … */
export const stepName = (position: number): string => STEP_NAMES[position] ?? `step${position + 1}`;

/** One step: `rounds` SHA-256 hashes of a small JSON document chained on `prev`; returns the last hex digest. */
export function stepWork(runId: string, step: string, prev: string, rounds: number): string {
  let digest = prev;
  for (let i = 0; i < rounds; i++)
    digest = createHash('sha256')
      .update(JSON.stringify({ runId, step, i, prev: digest }))
      .digest('hex');
  return digest;
}

/** What a whole chain of `steps` steps returns for `runId`: lets a caller prove every step ran once, in order. */
export function expectedDigest(runId: string, rounds: number, steps = STEP_NAMES.length): string {
  let digest = '';
  for (let p = 0; p < steps; p++) digest = stepWork(runId, stepName(p), digest, rounds);
  return digest;
}
