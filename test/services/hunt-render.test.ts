import assert from 'node:assert/strict';
import { renderPage } from '../../jobs/hunt/page-render.js';
import { ensureChromium } from '../support/chromium.js';
import { startScriptShop } from '../support/discovery-shops.js';
import { harness } from '../support/harness.js';
import { startShop } from '../support/shop-pages.js';

/** Rendering a page in chromium (issue 34): what it returns, and the bounds it keeps. */
describe('hunt: pages rendered in chromium, within bounds', function () {
  this.timeout(60_000);
  before(function () {
    if (ensureChromium()) this.skip();
  });
  const withConfig = (overrides: Partial<typeof harness.config>) => ({
    ...harness.deps,
    config: { ...harness.config, ...overrides },
  });

  it('returns the DOM after the scripts ran, with the bytes chromium received and the document status', async () => {
    const shop = await startScriptShop();
    try {
      const shown = await renderPage(harness.deps, `${shop.url}/drill`);
      assert.match(shown.html, /itemprop="price" content="189.00"/);
      assert.equal(shown.status, 200);
      assert.ok(shown.bytes > 0 && shown.requests >= 3, `${shown.bytes} bytes, ${shown.requests} requests`);
    } finally {
      await shop.stop();
    }
  });

  it('a page streaming past WEB_PAGE_MAX_BYTES is stopped, reported tooLarge; rendering can be off', async () => {
    // The script fetches /big (about 260 KB); the limit here is 64 KB.
    const shop = await startShop({
      extra: {
        '/spa': {
          body:
            '<!doctype html><html><body><div id="root"></div><script>fetch("/big").then(r => r.text())' +
            '.then(t => { document.getElementById("root").textContent = t.length; });</script></body></html>',
        },
      },
    });
    try {
      await assert.rejects(renderPage(withConfig({ WEB_PAGE_MAX_BYTES: 65_536 }), `${shop.url}/spa`), (err: any) => {
        assert.equal(err.reason, 'tooLarge', err.message);
        return true;
      });
      await assert.rejects(
        renderPage(withConfig({ HUNT_RENDER_CONCURRENCY: 0 }), `${shop.url}/spa`),
        /rendering pages is off/,
      );
    } finally {
      await shop.stop();
    }
  });
});
