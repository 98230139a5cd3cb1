import type { Static } from '@sinclair/typebox';
import type { Config } from '../../shared/config.js';
import type { Deps } from '../../shared/deps.js';
import type { BrowserReaderRequest, BrowserReaderResult } from './tools-schemas.js';
import { jsonLdBlocks } from './structured-data.js';
import { checkReadableUrl, fetchPage, isHtml, MAX_REDIRECTS, PageReadError, parseHtml, sha256 } from './page-fetch.js';
import { pageLinks, pageTitle, readableText } from './page-text.js';
import { renderPage } from './page-render.js';

/**
 * POST /v1/tools/browserReader. `read` fetches one page through the guarded
 * egress client (redirects followed and re-checked) and returns what it
 * says: title, readable text, links and JSON-LD, with the hash of the body
 * as fetched, so a claim built on it can be checked against the same bytes.
 * `prepare` says what a read would do, and fetches nothing.
 */

const TEXT_CHARS = 20_000;
const LINKS = 200;
const ACCEPT = 'text/html,application/xhtml+xml,text/plain;q=0.8,*/*;q=0.1';

type Request = Static<typeof BrowserReaderRequest>;
type Result = Static<typeof BrowserReaderResult>;

function refused(err: unknown): never {
  if (err instanceof PageReadError) throw err.toAppError('url');
  throw err;
}

export function preparePageRead(config: Config, body: Request): Result {
  const url = (() => {
    try {
      return checkReadableUrl(body.url, config.AWP_ALLOW_PRIVATE_EGRESS);
    } catch (err) {
      return refused(err);
    }
  })();
  return {
    ok: true,
    mode: 'prepare',
    url: body.url,
    plan: {
      target: { url: url.href, scheme: url.protocol.replace(':', ''), host: url.host },
      limits: {
        timeoutMs: config.WEB_PAGE_TIMEOUT_MS,
        maxBytes: config.WEB_PAGE_MAX_BYTES,
        maxRedirects: MAX_REDIRECTS,
        textChars: TEXT_CHARS,
        links: LINKS,
      },
      privateAddressesAllowed: config.AWP_ALLOW_PRIVATE_EGRESS,
      wouldRead: [
        `GET ${url.href} (Accept: HTML or plain text), following at most ${MAX_REDIRECTS} redirects, each ` +
          `checked like the first`,
        'the page title, its readable text (scripts, styles and hidden elements left out), its http(s) links ' +
          'and its JSON-LD objects',
        'the SHA-256 of the body as fetched',
      ],
      fetched: false,
    },
  };
}

/** A page's fields a rendered DOM has no use for (cheerio reads only the body and its type). */
const emptyPage = {
  requestedUrl: '',
  url: '',
  status: 200,
  contentType: '',
  headers: {},
  body: Buffer.alloc(0),
  fetchedAt: '',
  ms: 0,
};

/** `render: true`: the page as its scripts left the DOM, read in chromium (jobs/hunt/page-render.ts). */
async function readRendered(deps: Pick<Deps, 'db' | 'redis' | 'config'>, body: Request, signal?: AbortSignal) {
  try {
    checkReadableUrl(body.url, deps.config.AWP_ALLOW_PRIVATE_EGRESS);
  } catch (err) {
    refused(err);
  }
  const shown = await renderPage(deps, body.url, signal).catch(refused);
  const html = Buffer.from(shown.html);
  const contentType = 'text/html; charset=utf-8';
  const $ = await parseHtml({ ...emptyPage, url: shown.url, contentType, body: html });
  const text = readableText($, TEXT_CHARS + 1);
  return {
    ok: true as const,
    mode: 'read' as const,
    url: body.url,
    finalUrl: shown.url,
    status: shown.status,
    contentType,
    contentHash: sha256(html),
    bytes: html.length,
    fetchedAt: new Date().toISOString(),
    rendered: true,
    title: pageTitle($),
    text: text.slice(0, TEXT_CHARS),
    textTruncated: text.length > TEXT_CHARS,
    links: pageLinks($, shown.url, LINKS),
    structuredData: jsonLdBlocks($).roots,
  };
}

export async function readPage(
  deps: Pick<Deps, 'db' | 'redis' | 'config'>,
  body: Request,
  signal?: AbortSignal,
): Promise<Result> {
  if (body.render) return readRendered(deps, body, signal);
  const { config } = deps;
  const page = await fetchPage(body.url, {
    allowPrivate: config.AWP_ALLOW_PRIVATE_EGRESS,
    signal,
    timeoutMs: config.WEB_PAGE_TIMEOUT_MS,
    maxBytes: config.WEB_PAGE_MAX_BYTES,
    accept: ACCEPT,
  }).catch(refused);
  const base = {
    ok: true as const,
    mode: 'read' as const,
    url: body.url,
    finalUrl: page.url,
    status: page.status,
    contentType: page.contentType,
    contentHash: sha256(page.body),
    bytes: page.body.length,
    fetchedAt: page.fetchedAt,
  };
  if (isHtml(page.contentType)) {
    const $ = await parseHtml(page);
    const text = readableText($, TEXT_CHARS + 1);
    return {
      ...base,
      title: pageTitle($),
      text: text.slice(0, TEXT_CHARS),
      textTruncated: text.length > TEXT_CHARS,
      links: pageLinks($, page.url, LINKS),
      structuredData: jsonLdBlocks($).roots,
    };
  }
  // Plain text is its own readable text; anything else (an image, a PDF) is reported by type and hash, not decoded.
  const text = /^text\/plain\b/i.test(page.contentType) ? page.body.toString('utf8') : '';
  return {
    ...base,
    title: null,
    text: text.slice(0, TEXT_CHARS),
    textTruncated: text.length > TEXT_CHARS,
    links: [],
    structuredData: [],
  };
}
