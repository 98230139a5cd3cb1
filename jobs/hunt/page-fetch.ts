import { createHash } from 'node:crypto';
import type { CheerioAPI } from 'cheerio';
import { type AppError, policyViolation } from '../../shared/errors.js';
import { checkEgressUrl, EgressError, EgressRefused, egressFetch, type EgressPin } from '../../shared/http/egress.js';

/**
 * Reading one page (or image) through the guarded egress client, and parsing
 * what came back, for hunt's web source and the reader tools. Redirects are followed here, a few hops
 * at most, each hop checked again like the first (scheme, address), so a
 * page cannot redirect the reader to a private address.
 */

export const READER_USER_AGENT = 'awp-reader/0.1 (reads the pages a client names)';
export const MAX_REDIRECTS = 3;

/** Why a page could not be read; `message` names the host only (a URL's query may carry credentials). */
export type ReadFailure = 'refused' | 'unreachable' | 'timeout' | 'tooLarge' | 'redirects' | 'robots';

export class PageReadError extends Error {
  constructor(
    readonly reason: ReadFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PageReadError';
  }

  /** As a client error of a tool route: a refusal by policy or a page that cannot be read is 422, naming the field. */
  toAppError(field: string): AppError {
    return policyViolation(`${field}: ${this.message}`, { field, reason: this.reason });
  }
}

export interface FetchedPage {
  requestedUrl: string;
  /** The URL the body came from, after redirects. */
  url: string;
  status: number;
  contentType: string;
  /** The answer's headers (lower-case names), for the HTTP cache. */
  headers: Record<string, string>;
  body: Buffer;
  fetchedAt: string;
  ms: number;
}

export interface PageFetchOptions {
  allowPrivate: boolean;
  /** The caller's signal (a step's cancel, a client that went away); its reason is what the read rejects with. */
  signal?: AbortSignal;
  /** Time limit of the whole read, redirects included. */
  timeoutMs: number;
  /** Largest body read; a larger one is refused, never cut (a cut page would be hashed and parsed as if whole). */
  maxBytes: number;
  accept: string;
  /** Resolver and extra refusals for every hop (tests pass one they control); default: the system resolver. */
  pin?: EgressPin;
  /** Default READER_USER_AGENT; hunt's web source sends its own, with a contact URL. */
  userAgent?: string;
  /** Extra headers of the first request only (a revalidation's If-None-Match / If-Modified-Since). */
  headers?: Record<string, string>;
  /** Asked before every request, redirects included (robots.txt, the host's turn); rejects to refuse the hop. */
  beforeHop?: (url: string) => Promise<void>;
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return 'the page';
  }
};

/**
 * A URL the reader may ask for, or PageReadError('refused'): not http(s), carries credentials, or a private address
 * while egress is guarded.
 */
export function checkReadableUrl(raw: string, allowPrivate: boolean): URL {
  if (!/^https?:\/\//i.test(raw)) throw new PageReadError('refused', 'the URL must be http(s)');
  try {
    return checkEgressUrl(raw, { allowPrivate, requireHttps: false });
  } catch (err) {
    const message = (err as Error).message.replace(/^endpoint/, 'the URL');
    throw new PageReadError('refused', message);
  }
}

/**
 * Reads `url`, following up to three redirects; rejects with PageReadError, or with the signal's reason when it aborts.
 */
export async function fetchPage(url: string, opts: PageFetchOptions): Promise<FetchedPage> {
  const started = Date.now();
  let current = checkReadableUrl(url, opts.allowPrivate).href;
  for (let hop = 0; ; hop++) {
    const remaining = opts.timeoutMs - (Date.now() - started);
    if (remaining <= 0)
      throw new PageReadError('timeout', `${hostOf(url)} gave no complete answer within ${opts.timeoutMs} ms`);
    await opts.beforeHop?.(current);
    let res;
    try {
      res = await egressFetch(opts.allowPrivate, current, {
        signal: opts.signal,
        timeoutMs: remaining,
        maxBytes: opts.maxBytes,
        oversize: 'refuse',
        pin: opts.pin,
        headers: {
          ...(hop === 0 ? opts.headers : {}),
          accept: opts.accept,
          'user-agent': opts.userAgent ?? READER_USER_AGENT,
        },
      });
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw asReadError(err, current, opts);
    }
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      if (hop >= MAX_REDIRECTS)
        throw new PageReadError('redirects', `${hostOf(url)} redirected more than ${MAX_REDIRECTS} times`);
      current = checkReadableUrl(new URL(location, current).href, opts.allowPrivate).href;
      continue;
    }
    return {
      requestedUrl: url,
      url: current,
      status: res.status,
      contentType: res.headers['content-type'] ?? '',
      headers: res.headers,
      body: res.body,
      fetchedAt: new Date().toISOString(),
      ms: Date.now() - started,
    };
  }
}

function asReadError(err: unknown, url: string, opts: PageFetchOptions): PageReadError {
  const host = hostOf(url);
  if (err instanceof EgressError) {
    return err.reason === 'timeout'
      ? new PageReadError('timeout', `${host} gave no complete answer within ${opts.timeoutMs} ms`)
      : new PageReadError('tooLarge', `${host} answered with more than the ${opts.maxBytes}-byte limit`);
  }
  if (err instanceof EgressRefused)
    return new PageReadError('refused', `${host} did not resolve to an allowed address`);
  const code =
    (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  return new PageReadError('unreachable', `could not reach ${host}${code ? ` (${code})` : ''}`);
}

/** The charset a Content-Type names, for the decoder (the page's own <meta charset> is sniffed when it names none). */
function charsetOf(contentType: string): string | undefined {
  const param = contentType
    .split(';')
    .slice(1)
    .map((p) => p.trim().split('='))
    .find(([k]) => k?.toLowerCase() === 'charset');
  return param?.[1]?.replace(/"/g, '').trim() || undefined;
}

/** cheerio, loaded on the first page read: about 28 MB that a process which never reads a page does not carry. */
let cheerio: Promise<typeof import('cheerio')> | undefined;

/** The page as a document (cheerio: parse5 for HTML), decoded with the charset it declares. */
export async function parseHtml(page: FetchedPage): Promise<CheerioAPI> {
  const { loadBuffer } = await (cheerio ??= import('cheerio'));
  return loadBuffer(page.body, { encoding: { transportLayerEncodingLabel: charsetOf(page.contentType) } });
}

/** HTML or XHTML by its Content-Type; a page that names no type is tried as HTML. */
export const isHtml = (contentType: string) =>
  contentType === '' || /\b(text\/html|application\/xhtml\+xml)\b/i.test(contentType);
/** The SHA-256 (hex) of bytes as fetched: what snapshotHash, contentHash and an image's sha256 are. */
export const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');
