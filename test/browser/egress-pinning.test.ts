import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import { startPinningProxy, type PinningProxy } from '../../shared/http/pinning-proxy.js';
import { CHROMIUM, skipWithoutChromium } from '../support/chromium.js';
import { ALLOWED, FORBIDDEN, rebinding, startRebindTargets, type RebindTargets } from '../support/rebinding.js';
import { CHROMIUM_FLAGS as FLAGS } from '../../jobs/bridge/portal/browser.js';

const HOST = 'rebind.test';

/**
 * Chromium behind the pinning proxy, as the portal browser runs it, against
 * a host whose DNS answers 127.0.0.1 first and the forbidden 127.0.0.2 on
 * every later lookup. The page loads subresources and fetches from the
 * same host, then reloads: everything lands on the first answer. The name
 * resolves nowhere else (`.test` is reserved), so a request that reached a
 * server at all went through the proxy.
 */
describe('chromium behind the pinning proxy (DNS rebinding)', function () {
  this.timeout(120_000);
  let t: RebindTargets;
  let browser: Browser | undefined;
  let proxy: PinningProxy | undefined;

  before(async function () {
    skipWithoutChromium(this);
    t = await startRebindTargets((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(`<!doctype html><img src="/pixel.gif"><p id="out">waiting</p>
          <script>fetch('http://${HOST}:${t.port}/data').then((r) => r.text())
            .then((x) => { out.textContent = x; })</script>`);
      }
      res.end(req.url === '/data' ? 'data from allowed' : '');
    });
  });
  after(async () => {
    await browser?.close();
    await proxy?.close();
    await t?.stop();
  });

  const launch = async (pin: ReturnType<typeof rebinding>) => {
    await proxy?.close();
    proxy = await startPinningProxy(true, pin);
    await browser?.close();
    const args = [...FLAGS, ...proxy.chromiumArgs];
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
    return browser.newPage();
  };

  it('the page, its subresources, its fetches and a reload all reach the address checked first', async () => {
    const pin = rebinding([ALLOWED], [FORBIDDEN]);
    const page = await launch(pin);
    await page.goto(`http://${HOST}:${t.port}/`, { waitUntil: 'load' });
    await page.locator('#out', { hasText: 'data from allowed' }).waitFor();
    await page.reload({ waitUntil: 'load' });
    await page.locator('#out', { hasText: 'data from allowed' }).waitFor();
    assert.equal(await proxy!.refused(HOST), false, "the run's own check sees the same pinned answer");
    const lookups = pin.lookups.filter((h) => h === HOST);
    assert.deepEqual(lookups, [HOST], 'chromium never resolved the name: the proxy did, once');
    const paths = t.allowed.map((s) => s.path);
    for (const p of ['/', '/pixel.gif', '/data']) {
      assert.ok(paths.filter((x) => x === p).length >= 2, `${p} loaded twice: ${paths}`);
    }
    assert.deepEqual(t.forbidden, [], 'the forbidden address was never reached');
  });

  it('a host answering the forbidden address first is never reached; a loopback literal is proxied too', async () => {
    t.allowed.length = 0;
    const pin = rebinding([FORBIDDEN], [ALLOWED]);
    const page = await launch(pin);
    const status = (url: string) =>
      page.goto(url).then(
        (r) => r?.status() ?? 0,
        () => 'failed',
      );
    assert.equal(await status(`http://${HOST}:${t.port}/`), 403, 'the proxy refused the host');
    // Without <-loopback> chromium would connect to a loopback literal itself and get the forbidden server's 200.
    assert.equal(await status(`http://${FORBIDDEN}:${t.port}/`), 403, 'the proxy refused the literal');
    assert.equal(await proxy!.refused(HOST), true);
    assert.deepEqual([t.allowed.length, t.forbidden.length], [0, 0]);
  });
});
