import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';
import { PAGES, startShop, type ShopServer } from '../support/shop-pages.js';

const sha256 = (body: string | Buffer) => createHash('sha256').update(body).digest('hex');

describe('hunt: the web source reads offers from the pages given in urls', () => {
  let shop: ShopServer;
  let token: string;
  const at = (path: string) => `${shop.url}${path}`;
  const search = (body: Record<string, unknown>, t = token, base = harness.url) =>
    harness.call('POST', '/v1/hunt/search', { token: t, body }, base);

  before(async () => {
    shop = await startShop();
    ({ token } = await harness.account());
  });
  after(() => shop.stop());

  it(
    'reads JSON-LD, @graph, arrays, AggregateOffer, ' + 'microdata and Open Graph pages, and judges each ' + 'offer',
    async () => {
      const paths = [
        '/tools/drill-pro',
        '/tools/drill-compact',
        '/tools/drill-budget',
        '/tools/drill-hammer',
        '/tools/drill-clearance',
        '/tools/drill-micro',
        '/tools/drill-og',
        '/tools/bohrmaschine',
        '/tools/drill-marketplace',
      ];
      const res = await search({ query: 'cordless drill', budget: { maxUsd: 200 }, urls: paths.map(at) });
      assert.equal(res.status, 200, res.text);
      const by = (title: string) => {
        const c = res.body.candidates.find((x: any) => x.title === title);
        assert.ok(c, `${title} is a candidate: ${res.body.candidates.map((x: any) => x.title).join(', ')}`);
        return c;
      };

      const pro = by('ProDrive 20V Cordless Drill');
      assert.deepEqual(
        [
          pro.price,
          pro.currency,
          pro.fees,
          pro.net.amount,
          pro.eligible,
          pro.availability,
          pro.source,
          pro.markup,
          pro.vendor,
          pro.hiddenFeeClear,
        ],
        [149, 'USD', 9.99, '158.99', true, 'inStock', 'web', 'jsonLd', 'ToolBarn', true],
      );
      assert.equal(pro.url, at('/tools/drill-pro'));
      assert.equal(pro.snapshotHash, sha256(PAGES['/tools/drill-pro']!.body), 'bound to the exact bytes read');
      assert.ok(
        pro.reasons.some((r: string) => r.includes('$9.99 shipping')),
        pro.reasons.join(' | '),
      );
      assert.match(pro.candidateId, /^web_[0-9a-f]{24}$/);

      const compact = by('Compact 12V Drill Driver');
      assert.deepEqual(
        [compact.price, compact.net.amount, compact.fees, compact.vendor, compact.eligible],
        [129.5, '129.50', 0, 'Hammer & Co', true],
        '@graph: offer and seller followed through @id',
      );

      const budget = by('Budget Corded Drill');
      assert.equal(budget.eligible, false);
      assert.equal(budget.availability, 'outOfStock');
      assert.ok(budget.reasons.includes('not orderable now (outOfStock)'));

      const hammer = by('SDS Rotary Hammer Drill');
      assert.equal(hammer.eligible, false);
      assert.ok(hammer.reasons.includes('net $289.00 is over the $200.00 budget'));

      const clearance = by('Clearance 18V Drill');
      assert.deepEqual([clearance.hiddenFeeClear, clearance.net, clearance.eligible], [false, null, false]);
      assert.ok(
        clearance.reasons.some(
          (r: string) => r.includes('mentions a fee it does not price') && r.includes('plus handling fee'),
        ),
        clearance.reasons.join(' | '),
      );

      const micro = by('Right-Angle Drill 18V');
      assert.deepEqual(
        [micro.markup, micro.price, micro.net.amount, micro.vendor, micro.eligible],
        ['microdata', 139.99, '139.99', 'Angle Tools Inc.', true],
      );
      assert.ok(micro.reasons.includes('the page states no shipping cost; none is added'));

      const og = by('Brushless Impact Drill 20V');
      assert.deepEqual(
        [og.markup, og.price, og.fees, og.net.amount, og.vendor, og.availability, og.eligible],
        ['openGraph', 134, 5, '139.00', 'Impact Outlet', 'inStock', true],
      );

      const euro = by('Akku-Bohrschrauber für Holz');
      assert.deepEqual(
        [euro.price, euro.currency, euro.net, euro.netInBudgetCurrency],
        [
          99.9,
          'EUR',
          { amount: '99.90', currency: 'EUR' },
          {
            amount: '105.29',
            currency: 'USD',
            rate: '1.054',
            rateDate: '2022-04-29',
            rateSource: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml',
          },
        ],
        'ISO-8859-1 decoded, decimal comma read, euros converted to the budget currency at the dated ECB rate',
      );
      assert.ok(
        euro.reasons.includes('net €99.90 is $105.29 at 1.054 USD per EUR (ECB reference rate of 2022-04-29)'),
        euro.reasons.join(' | '),
      );

      const sellers = res.body.candidates.filter((c: any) => c.title === 'Marketplace Drill Kit');
      assert.deepEqual(
        sellers.map((c: any) => [c.vendor, c.price]).sort(),
        [
          ['Seller One', 95],
          ['Seller Two', 120],
        ],
        "an AggregateOffer's nested offers, one per seller",
      );
      assert.ok(
        sellers.every(
          (c: any) =>
            c.hiddenFeeClear === false && c.reasons.some((r: string) => r.includes('Shipping calculated at checkout')),
        ),
        'shipping left to checkout is not a clear total',
      );

      assert.ok(
        !res.body.candidates.some(
          (c: any) => /plus handling fee/.test(c.reasons.join()) && c.title !== 'Clearance 18V Drill',
        ),
        'text in scripts and hidden elements is not read as a fee',
      );
      const eligible = res.body.candidates.filter((c: any) => c.eligible).map((c: any) => c.title);
      assert.deepEqual(
        eligible,
        [
          'ProDrive 20V Cordless Drill',
          'Compact 12V Drill Driver',
          'Brushless Impact Drill 20V',
          'Right-Angle Drill 18V',
          'Akku-Bohrschrauber für Holz',
        ],
        'eligible first (the euro offer too, converted), best term match first, then net price',
      );
      assert.match(res.body.ranking, /Eligible candidates first.*share of the search terms.*net price/);

      const web = res.body.sourceTelemetry.web;
      assert.deepEqual([web.status, web.pagesRequested, web.pagesRead, web.errors.length], ['ok', 9, 9, 0]);
      assert.equal(web.offersFound, res.body.candidates.length);
      assert.equal(typeof web.ms, 'number');
      assert.equal(res.body.sourceTelemetry.catalog.matched, 0, 'the catalog is searched too');
    },
  );

  it('a page that fails is a telemetry error and the search answers with the rest', async () => {
    const urls = [
      '/tools/drill-pro',
      '/tools/gone',
      '/tools/error',
      '/tools/blog-post',
      '/tools/bad-json-ld',
      '/tools/brochure.pdf',
      '/redirect/drill',
    ].map(at);
    const res = await search({ query: 'drill', urls, sources: ['web'] });
    assert.equal(res.status, 200, res.text);
    const web = res.body.sourceTelemetry.web;
    assert.equal(web.status, 'partial');
    const reasons = Object.fromEntries(web.errors.map((e: any) => [new URL(e.url).pathname, [e.reason, e.error]]));
    assert.deepEqual(reasons['/tools/gone'], ['httpStatus', 'answered HTTP 404']);
    assert.deepEqual(reasons['/tools/error'], ['httpStatus', 'answered HTTP 500']);
    assert.equal(reasons['/tools/blog-post'][0], 'noOffers');
    assert.match(reasons['/tools/bad-json-ld'][1], /1 JSON-LD block\(s\) were not valid JSON/);
    assert.deepEqual(reasons['/tools/brochure.pdf'], ['notHtml', 'not an HTML page (application/pdf)']);
    const redirected = web.pages.find((p: any) => p.url === at('/redirect/drill'));
    assert.equal(redirected.finalUrl, at('/tools/drill-compact'), 'redirects are followed');
    assert.deepEqual(res.body.candidates.map((c: any) => c.title).sort(), [
      'Compact 12V Drill Driver',
      'ProDrive 20V Cordless Drill',
    ]);
    assert.equal(
      res.body.candidates.find((c: any) => c.title === 'Compact 12V Drill Driver').url,
      at('/tools/drill-compact'),
      'bound to the page the body came from',
    );
    assert.equal(res.body.sourceTelemetry.catalog, undefined, 'only the sources asked for');
  });

  it(
    'a slow page times out and a page over the size ' + 'limit is not read: both reported, never a failed ' + 'search',
    async () => {
      const strict = await startExtraApp({ WEB_PAGE_TIMEOUT_MS: '300', WEB_PAGE_MAX_BYTES: '20000' });
      try {
        const res = await search(
          { query: 'drill', urls: [at('/slow/one'), at('/big'), at('/tools/drill-og')] },
          token,
          strict.url,
        );
        assert.equal(res.status, 200, res.text);
        const reasons = res.body.sourceTelemetry.web.errors.map((e: any) => e.reason).sort();
        assert.deepEqual(reasons, ['timeout', 'tooLarge']);
        assert.deepEqual(
          res.body.candidates.map((c: any) => c.title),
          ['Brushless Impact Drill 20V'],
        );
      } finally {
        await strict.stop();
      }
    },
  );

  it(
    '400 for a URL that is not http(s), 422 naming the entry for a private address while egress is guarded, ' +
      '401 without a token',
    async () => {
      const ftp = await search({ query: 'drill', urls: ['ftp://shop.test/drill'] });
      assert.equal(ftp.status, 400);
      assert.equal(ftp.body.details[0].path, '/urls/0');
      assert.equal((await search({ query: 'drill', urls: ['javascript:alert(1)'] })).status, 400);
      assert.equal((await search({ query: 'drill', urls: new Array(21).fill(at('/tools/drill-pro')) })).status, 400);
      const guarded = await startExtraApp({ AWP_ALLOW_PRIVATE_EGRESS: '0' });
      try {
        const before = shop.requests.length;
        const res = await search(
          { query: 'drill', urls: ['https://shop.example/drill', at('/tools/drill-pro')] },
          token,
          guarded.url,
        );
        assert.equal(res.status, 422, res.text);
        assert.equal(res.body.details.field, 'urls/1');
        assert.equal(shop.requests.length, before, 'nothing was fetched');
      } finally {
        await guarded.stop();
      }
      assert.equal(
        (await harness.call('POST', '/v1/hunt/search', { body: { query: 'drill', urls: [at('/tools/drill-pro')] } }))
          .status,
        401,
      );
    },
  );

  it('without urls the web source says why it read nothing', async () => {
    const res = await search({ query: 'drill', sources: ['catalog', 'web'] });
    assert.equal(res.body.sourceTelemetry.web.status, 'unavailable');
    assert.match(res.body.sourceTelemetry.web.reason, /urls/);
  });
});
