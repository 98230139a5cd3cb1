import type { Deps } from '../../shared/deps.js';
import { searchListings } from '../../shared/db/catalog.js';
import type { Candidate } from '../../shared/schemas/hunt.js';
import { rankCandidates, searchTerms } from './logic.js';

/** The sources hunt can search; others are reported as unavailable, never silently skipped. */
export const HUNT_SOURCES = ['catalog'] as const;

export interface HuntSearch {
  candidates: Candidate[];
  sourceTelemetry: Record<string, unknown>;
  terms: string;
}

export async function huntSearch(deps: Pick<Deps, 'db'>, accountId: string, query: string, opts: { sources?: string[]; budgetUsd: number | null; cheapestFirst?: boolean }): Promise<HuntSearch> {
  const terms = searchTerms(query) || query;
  const sourceTelemetry: Record<string, unknown> = {};
  let candidates: Candidate[] = [];
  for (const source of opts.sources ?? HUNT_SOURCES) {
    if (source !== 'catalog') {
      sourceTelemetry[source] = { status: 'unavailable', reason: 'no connector for this source yet' };
      continue;
    }
    const started = performance.now();
    const { rows, mode } = await searchListings(deps.db, accountId, terms);
    candidates = rankCandidates(rows, opts.budgetUsd, Boolean(opts.cheapestFirst));
    sourceTelemetry.catalog = { status: 'ok', terms, matchMode: mode, matched: rows.length, eligible: candidates.filter((c) => c.eligible).length, ms: Math.round((performance.now() - started) * 10) / 10 };
  }
  return { candidates, sourceTelemetry, terms };
}
