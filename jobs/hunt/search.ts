import type { Deps } from '../../shared/deps.js';
import { searchListings } from './catalog-repository.js';
import { HUNT_SOURCES, type Candidate, type HuntSearchRequest } from '../../shared/schemas/hunt.js';
import { checkReadableUrl, PageReadError } from './page-fetch.js';
import { searchConnectors } from './connector-source.js';
import {
  budgetFrom,
  catalogCandidate,
  comparisonOf,
  rankCandidates,
  rankingExplanation,
  searchTerms,
} from './logic.js';
import type { Money } from './money.js';
import { currentRates } from './rates.js';
import { CONFIGURE_SEARCH, discoverPages } from './search-sources.js';
import { searchWeb, type PageReport, type PageToRead } from './web-source.js';

/** Pages one search reads at most: the ones named in urls first, then the search sources' finds. */
const MAX_WEB_PAGES = 24;

export interface HuntSearch {
  candidates: Candidate[];
  ranking: string;
  sourceTelemetry: Record<string, unknown>;
  terms: string;
  /** What prices were compared in: the budget (or the fallback currency) and the reference rates' day. */
  comparison: { currency: string; budget: Money | null; rates: { date: string; source: string } };
}

export interface HuntSearchOptions {
  /** Sources to read; default: the catalog and the web (the pages in `urls` and what search sources find). */
  sources?: string[];
  /** Pages for the `web` source. */
  urls?: string[];
  budget: Money | null;
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
 * The web source reads the pages the request names and the ones the account's
 * search sources find (`sourceTelemetry.search`); without a search source it
 * says what to configure, and the rest still answers.
 */
export async function huntSearch(
  deps: Pick<Deps, 'db' | 'config' | 'redis' | 'log'>,
  accountId: string,
  query: string,
  opts: HuntSearchOptions,
): Promise<HuntSearch> {
  const terms = searchTerms(query) || query;
  const urls = [...new Set(opts.urls ?? [])];
  const sources = [...new Set(opts.sources ?? ['catalog', 'web'])];
  const rates = await currentRates(deps);
  const cmp = comparisonOf(opts.budget, rates);
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
      const found = rows.map((row) => catalogCandidate(row, terms, cmp));
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
      const found = await searchConnectors(deps, accountId, { terms, cmp, signal: opts.signal });
      candidates.push(...found.candidates);
      sourceTelemetry.connector = { ...found.telemetry, ms: ms(started) };
    } else {
      const discovery = await discoverPages(deps, accountId, terms, opts.signal);
      sourceTelemetry.search = discovery.telemetry;
      const pages = new Map<string, PageToRead>(urls.map((url) => [url, { url, foundBy: ['urls'] }]));
      for (const found of discovery.pages) {
        const known = pages.get(found.url);
        if (known) known.foundBy.push(...found.foundBy);
        else if (pages.size < MAX_WEB_PAGES) pages.set(found.url, found);
      }
      if (pages.size === 0) {
        sourceTelemetry.web = {
          status: 'unavailable',
          reason:
            discovery.telemetry.status === 'unavailable'
              ? CONFIGURE_SEARCH
              : 'the search sources found no pages, and the request gave none in urls',
        };
        continue;
      }
      const web = await searchWeb(deps, [...pages.values()], { terms, cmp, signal: opts.signal, onPage: opts.onPage });
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
    comparison: { currency: cmp.currency, budget: cmp.budget, rates: { date: rates.date, source: rates.source } },
  };
}

/**
 * POST /v1/hunt/search: the request's urls are checked before anything is
 * read (a private or local address while egress is guarded is refused, 422,
 * naming the entry), then every source asked for is searched.
 */
export async function searchForClient(
  deps: Pick<Deps, 'db' | 'config' | 'redis' | 'log'>,
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
    budget: budgetFrom(body.budget),
    cheapestFirst: /cheap/i.test(body.query),
    signal,
  });
  return {
    ok: true as const,
    candidates: result.candidates,
    ranking: result.ranking,
    sourceTelemetry: result.sourceTelemetry,
    comparison: result.comparison,
  };
}
