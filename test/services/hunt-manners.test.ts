import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { politeFetch, robotsVerdict, waitTurn } from '../../jobs/hunt/manners.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { currentRates, fetchRates } from '../../jobs/hunt/rates.js';
import { harness } from '../support/harness.js';

/** A site that records each request (path, user agent, conditional headers) and answers what `route` says. */
async function site(route: (path: string, req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Array<{ path: string; ua: string | undefined; ifNoneMatch: string | undefined }> = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push({ path, ua: req.headers['user-agent'], ifNoneMatch: req.headers['if-none-match'] as string | undefined });
    route(path, req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    pages: () => seen.filter((s) => s.path !== '/robots.txt').map((s) => s.path),
    stop: () => (server.closeAllConnections(), new Promise((r) => server.close(r))),
  };
}

const opts = { allowPrivate: true, timeoutMs: 5000, maxBytes: 100_000, accept: 'text/html' };

describe('hunt manners: robots.txt, an identifying user agent, the HTTP cache, and the ECB rates sweep', () => {
  it('says who it is, revalidates with the ETag (304: the stored body), serves fresh pages unasked', async () => {
    const s = await site((path, req, res) => {
      if (path === '/robots.txt') return void res.writeHead(404).end();
      if (path === '/etag') {
        if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
        return void res.writeHead(200, { 'content-type': 'text/html', etag: '"v1"' }).end('<h1>v1</h1>');
      }
      if (path === '/fresh')
        return void res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'max-age=600' }).end('<p>f</p>');
      res.writeHead(404).end();
    });
    try {
      const first = await politeFetch(harness.deps, `${s.url}/etag`, opts);
      assert.deepEqual([first.status, first.cache, first.body.toString()], [200, 'stored', '<h1>v1</h1>']);
      const again = await politeFetch(harness.deps, `${s.url}/etag`, opts);
      assert.deepEqual([again.status, again.cache, again.body.toString()], [200, 'revalidated', '<h1>v1</h1>']);
      assert.equal(s.seen.filter((x) => x.path === '/etag').at(-1)!.ifNoneMatch, '"v1"');

      await politeFetch(harness.deps, `${s.url}/fresh`, opts);
      const fresh = await politeFetch(harness.deps, `${s.url}/fresh`, opts);
      assert.equal(fresh.cache, 'fresh');
      assert.deepEqual(s.pages(), ['/etag', '/etag', '/fresh'], 'the fresh page was not asked for again');
      assert.match(s.seen[0]!.ua!, /^awp-hunt\/1\.0 \(\+https?:\/\/\S+\)$/, 'identifies itself with a contact URL');
    } finally {
      await s.stop();
    }
  });

  it('robots.txt: its rules for awp-hunt apply, redirects included; an erring robots.txt forbids all', async () => {
    const s = await site((path, _req, res) => {
      if (path === '/robots.txt')
        return void res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end('User-agent: *\nDisallow: /cart/\n\nUser-agent: awp-hunt\nDisallow: /no-bots/\nCrawl-delay: 2\n');
      if (path === '/go') return void res.writeHead(302, { location: '/no-bots/page' }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
    });
    const down = await site((_path, _req, res) => void res.writeHead(503).end());
    try {
      assert.deepEqual(await robotsVerdict(harness.deps, `${s.url}/no-bots/x`), { allowed: false, crawlDelayMs: 2000 });
      assert.equal((await robotsVerdict(harness.deps, `${s.url}/cart/x`)).allowed, true, 'its own group, not *');
      await assert.rejects(politeFetch(harness.deps, `${s.url}/go`, opts), (err: any) => err.reason === 'robots');
      assert.deepEqual(s.pages(), ['/go'], 'the redirect target robots.txt forbids was never requested');
      assert.equal((await robotsVerdict(harness.deps, `${down.url}/anything`)).allowed, false);
      assert.deepEqual(down.pages(), []);
    } finally {
      // A later server on the same port must not inherit these verdicts (cached an hour; a failing one 5 minutes).
      const prefix = `${harness.config.QUEUE_PREFIX}:hunt:robots:`;
      await harness.deps.redis.del(`${prefix}${s.url}`, `${prefix}${down.url}`);
      await s.stop();
      await down.stop();
    }
  });

  it('a robots.txt that redirects is followed; two processes asking one host get turns apart', async () => {
    const s = await site((path, _req, res) => {
      if (path === '/robots.txt') return void res.writeHead(301, { location: '/policies/robots.txt' }).end();
      if (path === '/policies/robots.txt')
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /members/\n');
      res.writeHead(200).end();
    });
    const other = createDeps(harness.configWith({}), createLogger('silent'));
    try {
      assert.equal((await robotsVerdict(harness.deps, `${s.url}/members/x`)).allowed, false);
      assert.equal((await robotsVerdict(harness.deps, `${s.url}/shop/x`)).allowed, true);
      // Another process (its own Redis connection) asks for the same host at the same moment: one of them waits.
      const waits = await Promise.all([
        waitTurn(harness.deps, 'host:shared.example', 300),
        waitTurn(other, 'host:shared.example', 300),
      ]);
      assert.equal(waits.filter((w) => w > 0).length, 1, `one waited its turn: ${waits.join(', ')}`);
    } finally {
      await harness.deps.redis.del(`${harness.config.QUEUE_PREFIX}:hunt:robots:${s.url}`);
      await other.close();
      await s.stop();
    }
  });

  it("the hunt.rates sweep stores the ECB file's day once; hunt compares with it; unset, nothing", async () => {
    const xml =
      `<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" ` +
      `xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject>` +
      `<Cube><Cube time='2022-05-02'><Cube currency='USD' rate='1.0512'/><Cube currency='GBP' rate='0.84088'/>` +
      `</Cube></Cube></gesmes:Envelope>`;
    const ecb = await site((_p, _r, res) => void res.writeHead(200, { 'content-type': 'text/xml' }).end(xml));
    const { db } = harness.deps;
    try {
      assert.deepEqual(await fetchRates(harness.deps), { skipped: 'ECB_RATES_URL is not set' });
      const deps = { ...harness.deps, config: { ...harness.config, ECB_RATES_URL: `${ecb.url}/eurofxref-daily.xml` } };
      assert.deepEqual(await fetchRates(deps), { day: '2022-05-02', currencies: 2, stored: 2 });
      assert.deepEqual(await fetchRates(deps), { day: '2022-05-02', currencies: 2, stored: 0 }, 'a day is stored once');
      const rates = await currentRates(harness.deps);
      assert.deepEqual(
        [rates.date, rates.rates.GBP, rates.source],
        ['2022-05-02', '0.84088', `${ecb.url}/eurofxref-daily.xml`],
      );
    } finally {
      await db('hunt_exchange_rates').where({ day: '2022-05-02' }).delete();
      await ecb.stop();
    }
    assert.equal((await currentRates(harness.deps)).date, '2022-04-29', 'none stored: the shipped snapshot');
  });
});
