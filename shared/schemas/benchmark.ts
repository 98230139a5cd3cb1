import { Type, type Static } from '@sinclair/typebox';

/**
 * SHA-256 rounds per step of the `benchmark` domain: 100 by default (the
 * peers' BENCH_STEP_HASHES default), at most 10,000 (a few milliseconds of
 * CPU per step), so a run cannot hold a worker for long.
 */
export const BENCHMARK_HASHES = { default: 100, max: 10_000 } as const;

export const BenchmarkHashes = Type.Integer({
  minimum: 0,
  maximum: BENCHMARK_HASHES.max,
  description:
    `The benchmark domain's SHA-256 rounds per step (default ${BENCHMARK_HASHES.default}, ` +
    `at most ${BENCHMARK_HASHES.max}); other domains ignore it`,
});

/** What a benchmark step reads of the run's `metadata`; the rest is left to other steps. */
export const BenchmarkMetadata = Type.Object(
  { hashes: Type.Optional(BenchmarkHashes) },
  { additionalProperties: true },
);
export type BenchmarkMetadata = Static<typeof BenchmarkMetadata>;
