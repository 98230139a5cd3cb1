import type { Deps } from '../../shared/deps.js';
import type { Candidate, OfferMarkup } from '../../shared/schemas/hunt.js';
import { extractOffers, parseAmount } from './offers.js';
import type { Comparison } from './logic.js';
import { politeFetch } from './manners.js';
import { isHtml, parseHtml, PageReadError, sha256, type FetchedPage, type ReadFailure } from './page-fetch.js';
import { feeMentions, readableText } from './page-text.js';
import { looksScriptRendered, renderPage } from './page-render.js';
import { webCandidates } from './web-candidates.js';

/** Pages read at once: enough to hide one slow shop behind the others, few enough to be a polite client. */
const PAGE_CONCURRENCY = 4;
const HTML_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';

/** What happened to one page, for `sourceTelemetry.web` and the run's `domainStream`. */
export interface PageReport {
  url: string;
  /** Where the body came from, when redirects led elsewhere. */
  finalUrl?: string;
  ok: boolean;
  httpStatus: number | null;
  ms: number;
  bytes: number;
  snapshotHash: string | null;
  offers: number;
  eligible: number;
  markup: OfferMarkup | null;
  /** Read in headless chromium, its offers taken from the rendered DOM (the page looked script-rendered). */
  rendered: boolean;
  /** The HTTP cache: served fresh without a request, revalidated (304), stored, or not cacheable (null). */
  cache: 'fresh' | 'revalidated' | 'stored' | null;
  /** Who found the page: `urls` (the request named it) or `<kind>:<connectorId>` of a search source. */
  foundBy: string[];
  error?: string;
  reason?: ReadFailure | 'httpStatus' | 'notHtml' | 'noOffers';
}

/** A page to read and who found it. */
export interface PageToRead {
  url: string;
  foundBy: string[];
}

export interface WebSearch {
  candidates: Candidate[];
  telemetry: {
    status: 'ok' | 'partial' | 'failed';
    ms: number;
    pagesRequested: number;
    pagesRead: number;
    offersFound: number;
    eligible: number;
    errors: Array<{ url: string; reason: string; error: string }>;
    pages: PageReport[];
  };
}

export interface WebSearchOptions {
  terms: string;
  cmp: Comparison;
  signal?: AbortSignal;
  /** Called as each page is done (read or failed), in the order they finish. */
  onPage?: (report: PageReport) => Promise<void> | void;
}

type WebDeps = Pick<Deps, 'db' | 'redis' | 'config'>;

async function readOne(
  deps: WebDeps,
  target: PageToRead,
  opts: WebSearchOptions,
): Promise<{ report: PageReport; candidates: Candidate[] }> {
  const { config } = deps;
  const url = target.url;
  const started = Date.now();
  let rendered = false;
  let cache: PageReport['cache'] = null;
  const failed = (reason: NonNullable<PageReport['reason']>, error: string, page?: FetchedPage) => ({
    report: {
      url,
      ...(page && page.url !== url ? { finalUrl: page.url } : {}),
      ok: false,
      httpStatus: page?.status ?? null,
      ms: Date.now() - started,
      bytes: page?.body.length ?? 0,
      snapshotHash: page ? sha256(page.body) : null,
      offers: 0,
      eligible: 0,
      markup: null,
      rendered,
      cache,
      foundBy: target.foundBy,
      error,
      reason,
    },
    candidates: [],
  });
  let page: FetchedPage;
  try {
    ({ cache, ...page } = await politeFetch(deps, url, {
      allowPrivate: config.AWP_ALLOW_PRIVATE_EGRESS,
      signal: opts.signal,
      timeoutMs: config.WEB_PAGE_TIMEOUT_MS,
      maxBytes: config.WEB_PAGE_MAX_BYTES,
      accept: HTML_ACCEPT,
    }));
  } catch (err) {
    if (err instanceof PageReadError) return failed(err.reason, err.message);
    throw err; // the signal's reason (cancel, step timeout): the whole search stops
  }
  if (page.status < 200 || page.status >= 300) return failed('httpStatus', `answered HTTP ${page.status}`, page);
  if (!isHtml(page.contentType)) return failed('notHtml', `not an HTML page (${page.contentType.split(';')[0]})`, page);
  let $ = await parseHtml(page);
  let found = extractOffers($);
  if (found.offers.length === 0 && looksScriptRendered($)) {
    try {
      const shown = await renderPage(deps, page.url, opts.signal);
      rendered = true;
      $ = await parseHtml({ ...page, contentType: 'text/html; charset=utf-8', body: Buffer.from(shown.html) });
      found = extractOffers($);
    } catch (err) {
      if (err instanceof PageReadError) return failed(err.reason, `rendering it failed: ${err.message}`, page);
      throw err;
    }
  }
  const snapshotHash = sha256(page.body);
  const siteName = $('meta[property="og:site_name"]').attr('content')?.trim() || null;
  const fees = feeMentions(readableText($), (s) => parseAmount(s));
  const candidates = webCandidates(
    { url: page.url, snapshotHash, siteName, fees },
    found.offers,
    opts.terms,
    opts.cmp,
    target.foundBy,
  );
  if (candidates.length === 0) {
    const why =
      (rendered ? 'rendered in chromium, ' : '') +
      (found.offers.length + found.skipped > 0
        ? 'its product data gives no price with a currency'
        : `no schema.org Product or Offer (JSON-LD, microdata) and no Open Graph product ` +
          `tags${found.invalidJsonLd ? `; ${found.invalidJsonLd} JSON-LD block(s) were not valid JSON` : ''}`);
    return failed('noOffers', `no priced offers found: ${why}`, page);
  }
  const report: PageReport = {
    url,
    ...(page.url !== url ? { finalUrl: page.url } : {}),
    ok: true,
    httpStatus: page.status,
    ms: Date.now() - started,
    bytes: page.body.length,
    snapshotHash,
    offers: candidates.length,
    eligible: candidates.filter((c) => c.eligible).length,
    markup: candidates[0]!.markup ?? null,
    rendered,
    cache,
    foundBy: target.foundBy,
  };
  return { report, candidates };
}

/**
 * hunt's `web` source: reads the pages a request names, a few at a time,
 * and turns the offers they state into candidates bound to the page. A page
 * that fails (an HTTP error, a timeout, no product data) is reported in the
 * telemetry and the search answers with the rest; the caller's signal (a
 * canceled run, a client that left) stops every read in flight and rejects.
 */
export async function searchWeb(deps: WebDeps, urls: PageToRead[], opts: WebSearchOptions): Promise<WebSearch> {
  const started = Date.now();
  const results: Array<{ report: PageReport; candidates: Candidate[] }> = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      opts.signal?.throwIfAborted();
      const i = next++;
      results[i] = await readOne(deps, urls[i]!, opts);
      await opts.onPage?.(results[i]!.report);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PAGE_CONCURRENCY, urls.length) }, worker));
  const pages = results.map((r) => r.report);
  // Two URLs can lead to one page (a redirect, a tracking parameter): its offers count once.
  const candidates = [...new Map(results.flatMap((r) => r.candidates).map((c) => [c.candidateId, c])).values()];
  const errors = pages.filter((p) => !p.ok).map((p) => ({ url: p.url, reason: p.reason!, error: p.error! }));
  return {
    candidates,
    telemetry: {
      status: errors.length === 0 ? 'ok' : errors.length < pages.length ? 'partial' : 'failed',
      ms: Date.now() - started,
      pagesRequested: urls.length,
      pagesRead: pages.filter((p) => p.httpStatus !== null && p.httpStatus >= 200 && p.httpStatus < 300).length,
      offersFound: candidates.length,
      eligible: candidates.filter((c) => c.eligible).length,
      errors,
      pages,
    },
  };
}
