import type { Deps } from '../../shared/deps.js';
import { searchListings } from './catalog-repository.js';
import { HUNT_SOURCES, type Candidate, type HuntSearchRequest } from '../../shared/schemas/hunt.js';
import { checkReadableUrl, PageReadError } from './page-fetch.js';
import { searchConnectors } from './connector-source.js';
import { catalogCandidate, rankCandidates, rankingExplanation, searchTerms } from './logic.js';
import { searchWeb, type PageReport } from './web-source.js';

export interface HuntSearch {
  candidates: Candidate[];
  ranking: string;
  sourceTelemetry: Record<string, unknown>;
  terms: string;
}

export interface HuntSearchOptions {
  /** Sources to read; default: the catalog, and the web when `urls` are given. */
  sources?: string[];
  /** Pages for the `web` source. */
  urls?: string[];
  budgetUsd: number | null;
  cheapestFirst?: boolean;
  signal?: AbortSignal;
  onPage?: (report: PageReport) => Promise<void> | void;
}

const isKnownSource = (s: string): s is (typeof HUNT_SOURCES)[number] =>
  (HUNT_SOURCES as readonly string[]).includes(s);
const ms = (since: number) => Math.round((performance.now() - since) * 10) / 10;

/**
 * Candidates for a request from every source asked for, each bound to where
 * it came from, ranked together. Every source asked for appears in the
 * telemetry: read, failed, or unavailable (with why), never silently skipped.
 */
export async function huntSearch(
  deps: Pick<Deps, 'db' | 'config' | 'redis'>,
  accountId: string,
  query: string,
  opts: HuntSearchOptions,
): Promise<HuntSearch> {
  const terms = searchTerms(query) || query;
  const urls = [...new Set(opts.urls ?? [])];
  const sources = [...new Set(opts.sources ?? (urls.length > 0 ? ['catalog', 'web'] : ['catalog']))];
  const sourceTelemetry: Record<string, unknown> = {};
  const candidates: Candidate[] = [];
  for (const source of sources) {
    if (!isKnownSource(source)) {
      sourceTelemetry[source] = { status: 'unavailable', reason: 'no connector for this source yet' };
      continue;
    }
    const started = performance.now();
    if (source === 'catalog') {
      const { rows, mode } = await searchListings(deps.db, accountId, terms);
      const found = rows.map((row) => catalogCandidate(row, terms, opts.budgetUsd));
      candidates.push(...found);
      sourceTelemetry.catalog = {
        status: 'ok',
        terms,
        matchMode: mode,
        matched: rows.length,
        eligible: found.filter((c) => c.eligible).length,
        ms: ms(started),
      };
    } else if (source === 'connector') {
      const found = await searchConnectors(deps, accountId, { terms, budgetUsd: opts.budgetUsd, signal: opts.signal });
      candidates.push(...found.candidates);
      sourceTelemetry.connector = { ...found.telemetry, ms: ms(started) };
    } else if (urls.length === 0) {
      sourceTelemetry.web = {
        status: 'unavailable',
        reason: 'the web source reads the pages given in urls, and none were given',
      };
    } else {
      const web = await searchWeb(deps.config, urls, {
        terms,
        budgetUsd: opts.budgetUsd,
        signal: opts.signal,
        onPage: opts.onPage,
      });
      candidates.push(...web.candidates);
      sourceTelemetry.web = web.telemetry;
    }
  }
  const cheapestFirst = Boolean(opts.cheapestFirst);
  return {
    candidates: rankCandidates(candidates, cheapestFirst),
    ranking: rankingExplanation(cheapestFirst, terms),
    sourceTelemetry,
    terms,
  };
}

/**
 * POST /v1/hunt/search: the request's urls are checked before anything is
 * read (a private or local address while egress is guarded is refused, 422,
 * naming the entry), then every source asked for is searched.
 */
export async function searchForClient(
  deps: Pick<Deps, 'db' | 'config' | 'redis'>,
  accountId: string,
  body: HuntSearchRequest,
  signal?: AbortSignal,
) {
  (body.urls ?? []).forEach((url, i) => {
    try {
      checkReadableUrl(url, deps.config.AWP_ALLOW_PRIVATE_EGRESS);
    } catch (err) {
      if (err instanceof PageReadError) throw err.toAppError(`urls/${i}`);
      throw err;
    }
  });
  const query = [body.query, body.location].filter(Boolean).join(' ');
  const result = await huntSearch(deps, accountId, query, {
    sources: body.sources,
    urls: body.urls,
    budgetUsd: body.budget?.maxUsd ?? null,
    cheapestFirst: /cheap/i.test(body.query),
    signal,
  });
  return {
    ok: true as const,
    candidates: result.candidates,
    ranking: result.ranking,
    sourceTelemetry: result.sourceTelemetry,
  };
}
