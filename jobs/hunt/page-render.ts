import type { CheerioAPI } from 'cheerio';
import type { Browser } from 'playwright-core';
import type { Deps } from '../../shared/deps.js';
import { startPinningProxy, type PinningProxy } from '../../shared/http/pinning-proxy.js';
import { CHROMIUM_FLAGS } from '../bridge/index.js';
import { robotsVerdict, spaceRequests, userAgent } from './manners.js';
import { PageReadError } from './page-fetch.js';
import { readableText } from './page-text.js';

/**
 * Pages that need a browser (issue 34): a shop whose offers only exist after its scripts run is read in headless
 * chromium (playwright-core), through the same pinning proxy as portals (chromium resolves no name itself; each host
 * is checked and pinned), with robots.txt asked for every request the page makes, images, fonts and media not
 * loaded, and bounds on time (HUNT_RENDER_TIMEOUT_MS), bytes (WEB_PAGE_MAX_BYTES over every response and the
 * rendered document) and concurrency (HUNT_RENDER_CONCURRENCY per process).
 */

const APP_ROOTS = '#root, #app, #__next, #__nuxt, #svelte, app-root, [data-reactroot], [ng-app], [ng-version]';
const STRUCTURED = 'script[type="application/ld+json"], [itemtype*="schema.org/Product"], [itemprop="price"]';
const SKIPPED_TYPES = new Set(['image', 'media', 'font']);

/**
 * Looks script-rendered: little readable text, or an empty app root, with scripts to fill it; or a noscript that
 * asks for JavaScript. A page with text and no scripts is taken as it is (rendering would add nothing).
 */
export function looksScriptRendered($: CheerioAPI): boolean {
  const scripts = $('script[src], script:not([type]), script[type="module"], script[type="text/javascript"]').length;
  if (scripts === 0) return false;
  const text = readableText($).replace(/\s+/g, ' ').trim();
  const root = $(APP_ROOTS).first();
  const emptyRoot = root.length > 0 && root.text().trim().length < 200;
  const asksForJs = /javascript/i.test($('noscript').text());
  return text.length < 400 || emptyRoot || asksForJs;
}

let running = 0;
const waiting: Array<() => void> = [];

async function slot(limit: number, signal?: AbortSignal): Promise<() => void> {
  while (running >= limit) {
    signal?.throwIfAborted();
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

export interface RenderedPage {
  url: string;
  /** HTTP status of the page's document. */
  status: number;
  html: string;
  /** Bytes chromium received for the page (its document, scripts, data), as they arrived. */
  bytes: number;
  requests: number;
  ms: number;
}

/** The page's DOM after its scripts ran, serialized; rejects with PageReadError when it cannot be had. */
export async function renderPage(
  deps: Pick<Deps, 'db' | 'redis' | 'config'>,
  url: string,
  signal?: AbortSignal,
): Promise<RenderedPage> {
  const { config } = deps;
  if (config.HUNT_RENDER_CONCURRENCY <= 0)
    throw new PageReadError('refused', 'rendering pages is off (HUNT_RENDER_CONCURRENCY=0)');
  const release = await slot(config.HUNT_RENDER_CONCURRENCY, signal);
  const started = Date.now();
  const host = new URL(url).host;
  let browser: Browser | null = null;
  let proxy: PinningProxy | null = null;
  let bytes = 0;
  let requests = 0;
  let over = false;
  const timer = setTimeout(() => void browser?.close().catch(() => undefined), config.HUNT_RENDER_TIMEOUT_MS);
  const onAbort = () => void browser?.close().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const { chromium } = await import('playwright-core');
    proxy = await startPinningProxy(config.AWP_ALLOW_PRIVATE_EGRESS);
    browser = await chromium.launch({
      executablePath: config.BROWSER_EXECUTABLE,
      headless: true,
      args: [...CHROMIUM_FLAGS, ...proxy.chromiumArgs],
      timeout: config.HUNT_RENDER_TIMEOUT_MS,
    });
    const context = await browser.newContext({
      userAgent: userAgent(deps),
      acceptDownloads: false,
      serviceWorkers: 'block',
      javaScriptEnabled: true,
    });
    await context.route('**/*', async (route) => {
      const req = route.request();
      const target = new URL(req.url());
      if (target.protocol === 'data:' || target.protocol === 'blob:') return route.continue();
      if (target.protocol !== 'http:' && target.protocol !== 'https:') return route.abort('blockedbyclient');
      if (over || SKIPPED_TYPES.has(req.resourceType())) return route.abort('blockedbyclient');
      if (!config.AWP_ALLOW_PRIVATE_EGRESS && (await proxy!.refused(target.hostname)))
        return route.abort('blockedbyclient');
      // What robots.txt forbids is never requested, by the page's scripts either.
      if (!(await robotsVerdict(deps, target.href, signal)).allowed) return route.abort('blockedbyclient');
      requests++;
      return route.continue();
    });
    const page = await context.newPage();
    // Bytes as they arrive (chromium's own count of every chunk, chunked answers included): past the limit the
    // browser is closed at once, so a page cannot stream more than WEB_PAGE_MAX_BYTES into it.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.dataReceived', (e: { dataLength: number; encodedDataLength: number }) => {
      bytes += Math.max(e.encodedDataLength, e.dataLength);
      if (bytes > config.WEB_PAGE_MAX_BYTES && !over) {
        over = true;
        void browser?.close().catch(() => undefined);
      }
    });
    await spaceRequests(deps, host, signal);
    const remaining = () => Math.max(100, config.HUNT_RENDER_TIMEOUT_MS - (Date.now() - started));
    const answer = await page.goto(url, { waitUntil: 'load', timeout: remaining() });
    // Offers rendered by script appear after load; wait for structured data, or until the page's network is quiet.
    await Promise.race([
      page.waitForSelector(STRUCTURED, { state: 'attached', timeout: remaining() }),
      page.waitForLoadState('networkidle', { timeout: remaining() }),
    ]).catch(() => undefined);
    const html = await page.content();
    if (over || Buffer.byteLength(html) > config.WEB_PAGE_MAX_BYTES)
      throw new PageReadError('tooLarge', `${host} loaded more than the ${config.WEB_PAGE_MAX_BYTES}-byte limit`);
    return {
      url: page.url(),
      status: answer?.status() ?? 200,
      html,
      bytes: bytes || Buffer.byteLength(html),
      requests,
      ms: Date.now() - started,
    };
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof PageReadError) throw err;
    if (over)
      throw new PageReadError('tooLarge', `${host} loaded more than the ${config.WEB_PAGE_MAX_BYTES}-byte limit`);
    if (Date.now() - started >= config.HUNT_RENDER_TIMEOUT_MS)
      throw new PageReadError('timeout', `${host} did not render within ${config.HUNT_RENDER_TIMEOUT_MS} ms`);
    throw new PageReadError('unreachable', `${host} could not be rendered: ${(err as Error).message.split('\n')[0]}`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    await (browser as Browser | null)?.close().catch(() => undefined);
    await (proxy as PinningProxy | null)?.close();
    release();
  }
}
