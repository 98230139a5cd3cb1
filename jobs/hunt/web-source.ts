import type { Config } from '../../shared/config.js';
import type { Candidate, OfferMarkup } from '../../shared/schemas/hunt.js';
import { extractOffers, parseAmount } from './offers.js';
import {
  fetchPage,
  isHtml,
  parseHtml,
  PageReadError,
  sha256,
  type FetchedPage,
  type ReadFailure,
} from './page-fetch.js';
import { feeMentions, readableText } from './page-text.js';
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
  error?: string;
  reason?: ReadFailure | 'httpStatus' | 'notHtml' | 'noOffers';
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
  budgetUsd: number | null;
  signal?: AbortSignal;
  /** Called as each page is done (read or failed), in the order they finish. */
  onPage?: (report: PageReport) => Promise<void> | void;
}

async function readOne(
  config: Config,
  url: string,
  opts: WebSearchOptions,
): Promise<{ report: PageReport; candidates: Candidate[] }> {
  const started = Date.now();
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
      error,
      reason,
    },
    candidates: [],
  });
  let page: FetchedPage;
  try {
    page = await fetchPage(url, {
      allowPrivate: config.AWP_ALLOW_PRIVATE_EGRESS,
      signal: opts.signal,
      timeoutMs: config.WEB_PAGE_TIMEOUT_MS,
      maxBytes: config.WEB_PAGE_MAX_BYTES,
      accept: HTML_ACCEPT,
    });
  } catch (err) {
    if (err instanceof PageReadError) return failed(err.reason, err.message);
    throw err; // the signal's reason (cancel, step timeout): the whole search stops
  }
  if (page.status < 200 || page.status >= 300) return failed('httpStatus', `answered HTTP ${page.status}`, page);
  if (!isHtml(page.contentType)) return failed('notHtml', `not an HTML page (${page.contentType.split(';')[0]})`, page);
  const $ = await parseHtml(page);
  const found = extractOffers($);
  const snapshotHash = sha256(page.body);
  const siteName = $('meta[property="og:site_name"]').attr('content')?.trim() || null;
  const fees = feeMentions(readableText($), (s) => parseAmount(s));
  const candidates = webCandidates(
    { url: page.url, snapshotHash, siteName, fees },
    found.offers,
    opts.terms,
    opts.budgetUsd,
  );
  if (candidates.length === 0) {
    const why =
      found.offers.length + found.skipped > 0
        ? 'its product data gives no price with a currency'
        : `no schema.org Product or Offer (JSON-LD, microdata) and no Open Graph product ` +
          `tags${found.invalidJsonLd ? `; ${found.invalidJsonLd} JSON-LD block(s) were not valid JSON` : ''}`;
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
export async function searchWeb(config: Config, urls: string[], opts: WebSearchOptions): Promise<WebSearch> {
  const started = Date.now();
  const results: Array<{ report: PageReport; candidates: Candidate[] }> = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      opts.signal?.throwIfAborted();
      const i = next++;
      results[i] = await readOne(config, urls[i]!, opts);
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
