import { BENCHMARK_HASHES, BenchmarkMetadata } from '../../shared/schemas/benchmark.js';
import { assertValid } from '../../shared/validation.js';
import type { StepHandler } from '../step.js';
import { stepName, stepWork } from './logic.js';

/** What the benchmark step before this one in the run returned, if one did. */
function previous(prior: Record<string, unknown> | undefined): { digest: string; position: number } | null {
  const { digest, position } = prior ?? {};
  return typeof digest === 'string' && Number.isInteger(position) ? { digest, position: position as number } : null;
}

/**
 * The peers' step (bench/peers): `metadata.hashes` SHA-256 rounds over
 * `{ runId, step, i, prev }`, chained on the digest the benchmark step before
 * it returned, with the peers' step names (`one`, `two`, `three`) by position
 * in the chain. It reads nothing of the account and acts on nothing, so it
 * needs no scope beyond the `runs:write` the run was submitted with.
 */
export const benchmarkStep: StepHandler = async (input) => {
  // The orchestrator body's schema refuses an out-of-range count with a 400 at submission; this reads it typed.
  const { hashes = BENCHMARK_HASHES.default } = assertValid<BenchmarkMetadata>(BenchmarkMetadata, input.metadata);
  const before = previous(input.prior.benchmark);
  const position = before ? before.position + 1 : 0;
  const step = stepName(position);
  const digest = stepWork(input.runId, step, before?.digest ?? '', hashes);
  return {
    output: { digest, step, position, hashes },
    evidence: [
      {
        claim: `${hashes} SHA-256 rounds of step ${step} give ${digest || 'no digest'}`,
        // Anyone can recompute it: the document hashed is named in full by the run id, the step and the rounds.
        source: `sha256 chain of ${input.runId}, step ${step}`,
        sourceBound: true,
      },
    ],
    conversation: [`Step ${step}: ${hashes} SHA-256 rounds → ${digest.slice(0, 12) || '(none)'}`],
  };
};
