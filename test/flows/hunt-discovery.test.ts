import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { ensureChromium } from '../support/chromium.js';
import { startEuroShop, startPoundShop, startScriptShop } from '../support/discovery-shops.js';
import { pollUntilRest } from '../support/runs.js';
import type { ShopServer } from '../support/shop-pages.js';
import { startBrave, startSearxng, startSerpApi, type SearchFake } from '../support/search-fakes.js';

const ECB = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

/**
 * Issue 34, done when: "Find a cordless drill under 400 euros" with a search source configured answers ranked,
 * eligible offers in EUR from pages hunt discovered itself (a script-rendered shop among them, read in chromium),
 * never requests what robots.txt forbids, and names the rate and day of every converted price.
 */
describe('hunt discovers: search sources, script-rendered shops, robots.txt, money in its currency', function () {
  this.timeout(120_000);
  let euro: ShopServer;
  let pound: ShopServer;
  let script: ShopServer;
  let searx: SearchFake;
  let brave: SearchFake;
  let serp: SearchFake;
  let skip: string | null;

  const connect = async (token: string, id: string, kind: string, endpoint: string, key?: string) => {
    if (key) {
      const cred = await harness.call('POST', '/v1/bridge/credentials', {
        token,
        body: { name: `${id}-key`, kind: 'apiKey', value: key },
      });
      assert.equal(cred.status, 201, cred.text);
    }
    const made = await harness.call('POST', '/v1/bridge/connectors', {
      token,
      body: {
        connectorId: id,
        kind,
        caps: ['search.web'],
        endpoint,
        ...(key ? { credential: { type: 'apiKey', tokenRef: `cred:${id}-key` } } : {}),
      },
    });
    assert.equal(made.status, 201, made.text);
  };

  before(async () => {
    skip = ensureChromium();
    [euro, pound, script] = await Promise.all([startEuroShop(), startPoundShop(), startScriptShop()]);
    const found = [
      { url: `${euro.url}/p/cordless-drill-18v`, title: 'Cordless Drill Driver 18V | Werkzeughaus' },
      { url: `${pound.url}/products/cordless-combi-drill`, title: 'Cordless Combi Drill 18V - Tooling UK' },
      { url: `${script.url}/drill`, title: 'Bricomarkt cordless drills' },
      { url: `${pound.url}/private/cordless-drill-trade`, title: 'Trade prices' },
      { url: `${euro.url}/p/cordless-hammer-drill-36v`, title: 'Cordless Hammer Drill 36V' },
    ];
    searx = await startSearxng(found);
    brave = await startBrave(found.slice(0, 2), 'brave-token-0123456789');
    serp = await startSerpApi(
      [{ url: `${euro.url}/p/cordless-drill-18v`, title: 'Cordless Drill Driver 18V', price: '€329.00' }],
      'serp-key-0123456789abcdef',
    );
  });
  after(async () => {
    for (const s of [euro, pound, script, searx, brave, serp]) await s?.stop();
  });

  it('the done-when request: ranked eligible EUR offers from discovered pages, robots.txt obeyed', async function () {
    if (skip) this.skip();
    const { token } = await harness.account();
    await connect(token, 'searx', 'searxng', searx.url);
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'Find a cordless drill under 400 euros', domainRoute: ['hunt'] },
    });
    assert.ok([200, 202].includes(res.status), res.text);
    const body =
      res.status === 202 ? { results: (await pollUntilRest(token, res.body.runId)).result.results } : res.body;
    const hunt = body.results.hunt;
    assert.deepEqual(hunt.budget, { amount: '400.00', currency: 'EUR' });
    assert.equal(searx.requests[0]!.query.format, 'json');
    assert.equal(searx.requests[0]!.query.q, 'cordless drill');

    const by = (title: string) => hunt.candidates.find((c: any) => c.title === title);
    const eligible = hunt.candidates.filter((c: any) => c.eligible).map((c: any) => c.title);
    assert.deepEqual(
      eligible.sort(),
      ['Cordless Combi Drill 18V', 'Cordless Drill 12V Compact', 'Cordless Drill Driver 18V'],
      hunt.candidates.map((c: any) => `${c.title}: ${c.reasons.join('; ')}`).join('\n'),
    );
    assert.equal(
      hunt.candidates.slice(0, 3).every((c: any) => c.eligible),
      true,
      'eligible ranked first',
    );

    const driver = by('Cordless Drill Driver 18V');
    assert.deepEqual(driver.net, { amount: '338.90', currency: 'EUR' }, '€329.00 + €9.90 shipping');
    assert.deepEqual(driver.netInBudgetCurrency, {
      amount: '338.90',
      currency: 'EUR',
      rate: null,
      rateDate: null,
      rateSource: null,
    });
    assert.deepEqual(driver.foundBy, ['searxng:searx']);

    const combi = by('Cordless Combi Drill 18V');
    assert.deepEqual(combi.net, { amount: '279.00', currency: 'GBP' });
    assert.deepEqual(combi.netInBudgetCurrency, {
      amount: '332.51',
      currency: 'EUR',
      rate: '1.19178',
      rateDate: '2022-04-29',
      rateSource: ECB,
    });
    assert.ok(
      combi.reasons.includes('net £279.00 is €332.51 at 1.19178 EUR per GBP (ECB reference rate of 2022-04-29)'),
      combi.reasons.join(' | '),
    );

    const rendered = by('Cordless Drill 12V Compact');
    assert.equal(rendered.markup, 'microdata');
    assert.deepEqual(rendered.net, { amount: '189.00', currency: 'EUR' });
    const renderedPage = hunt.sourceTelemetry.web.pages.find((p: any) => p.url === `${script.url}/drill`);
    assert.equal(renderedPage.rendered, true, 'read in chromium: its offer exists only after the script ran');
    assert.ok(script.requests.includes('/api/drill.json'), "the page's own script fetched the product");

    const hammer = by('Cordless Hammer Drill 36V');
    assert.equal(hammer.eligible, false);
    assert.ok(hammer.reasons.includes('net €489.00 is over the €400.00 budget'), hammer.reasons.join(' | '));

    assert.ok(!pound.requests.includes('/private/cordless-drill-trade'), 'robots.txt forbids it: never requested');
    assert.ok(!script.requests.includes('/private/pixel'), "nor what a rendered page's script asks for under it");
    const refused = hunt.sourceTelemetry.web.errors.find((e: any) => e.url.endsWith('/private/cordless-drill-trade'));
    assert.equal(refused.reason, 'robots');
    assert.equal(by('Cordless Drill Trade Price'), undefined);
    assert.deepEqual(hunt.comparison.rates, { date: '2022-04-29', source: ECB });

    assert.ok(euro.requests.includes('/robots.txt'), 'robots.txt read before the pages');
  });

  it('Brave Search and SerpAPI each find candidates, named as the source that found them', async function () {
    const { token } = await harness.account();
    await connect(token, 'brave', 'brave', brave.url, 'brave-token-0123456789');
    await connect(token, 'serp', 'serpapi', serp.url, 'serp-key-0123456789abcdef');
    const res = await harness.call('POST', '/v1/hunt/search', {
      token,
      body: { query: 'cordless drill', sources: ['web'], budget: { amount: 400, currency: 'EUR' } },
    });
    assert.equal(res.status, 200, res.text);
    const search = res.body.sourceTelemetry.search;
    assert.equal(search.sources['brave:brave'].status, 'ok');
    assert.equal(search.sources['serpapi:serp'].status, 'ok');
    assert.equal(brave.requests[0]!.headers['x-subscription-token'], 'brave-token-0123456789');
    assert.equal(serp.requests[0]!.query.engine, 'google_shopping');
    const driver = res.body.candidates.find((c: any) => c.title === 'Cordless Drill Driver 18V');
    assert.deepEqual(driver.foundBy.sort(), ['brave:brave', 'serpapi:serp']);
    const combi = res.body.candidates.find((c: any) => c.title === 'Cordless Combi Drill 18V');
    assert.deepEqual([combi.foundBy, combi.eligible], [['brave:brave'], true]);
  });

  it('a 429 is honoured: a short Retry-After waited out once, a long one keeps the source resting', async () => {
    const { token } = await harness.account();
    await connect(token, 'searx-busy', 'searxng', searx.url);
    const asked = () => searx.requests.length;
    const before = asked();
    searx.failNext.push({ status: 429, headers: { 'retry-after': '1' }, body: { error: 'Too Many Requests' } });
    let res = await harness.call('POST', '/v1/hunt/search', {
      token,
      body: { query: 'cordless drill', sources: ['web'], budget: { amount: 400, currency: 'EUR' } },
    });
    assert.equal(res.status, 200, res.text);
    const source = res.body.sourceTelemetry.search.sources['searxng:searx-busy'];
    assert.deepEqual([source.status, source.waitedForRetryAfterMs, asked() - before], ['ok', 1000, 2]);

    searx.failNext.push({ status: 429, headers: { 'retry-after': '120' }, body: { error: 'Too Many Requests' } });
    res = await harness.call('POST', '/v1/hunt/search', { token, body: { query: 'cordless drill', sources: ['web'] } });
    const limited = res.body.sourceTelemetry.search.sources['searxng:searx-busy'];
    assert.deepEqual([limited.status, limited.code, limited.retryAfterS], ['rateLimited', 'rateLimited', 120]);
    const count = asked();
    res = await harness.call('POST', '/v1/hunt/search', { token, body: { query: 'cordless drill', sources: ['web'] } });
    assert.equal(res.body.sourceTelemetry.search.sources['searxng:searx-busy'].status, 'rateLimited');
    assert.equal(asked(), count, 'not asked again before its Retry-After has passed');
  });

  it('a refused credential is reported, the other sources still answer', async () => {
    const { token } = await harness.account();
    await connect(token, 'brave-bad', 'brave', brave.url, 'not-the-token-000000');
    await connect(token, 'searx-ok', 'searxng', searx.url);
    const res = await harness.call('POST', '/v1/hunt/search', {
      token,
      body: { query: 'cordless drill', sources: ['web'] },
    });
    const sources = res.body.sourceTelemetry.search.sources;
    assert.deepEqual([sources['brave:brave-bad'].status, sources['brave:brave-bad'].code], ['failed', 'unauthorized']);
    assert.ok(!JSON.stringify(sources).includes('not-the-token'), 'the credential is never echoed');
    assert.equal(sources['searxng:searx-ok'].status, 'ok');
    assert.equal(res.body.sourceTelemetry.search.status, 'partial');
  });

  it('without a search source the answer says what to configure; the catalog and given urls still work', async () => {
    const { token } = await harness.account();
    const imported = await harness.call('POST', '/v1/hunt/catalog/import', {
      token,
      body: { listings: [{ title: 'Cordless drill, shop floor', price: 120, currency: 'EUR' }] },
    });
    assert.equal(imported.status, 201, imported.text);
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find a cordless drill under €400', domainRoute: ['hunt'] },
    });
    assert.equal(res.status, 200, res.text);
    const hunt = res.body.results.hunt;
    assert.equal(hunt.sourceTelemetry.search.status, 'unavailable');
    assert.match(
      hunt.sourceTelemetry.web.reason,
      /no search source is configured: register a connector of kind searxng/,
    );
    const events = (await harness.call('GET', `/v1/runs/${res.body.runId}/events`, { token })).text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(
      events.some((e) => e.type === 'conversation' && e.line.includes('The web was not searched: no search source')),
      'the answer says so',
    );
    assert.equal(hunt.selected.title, 'Cordless drill, shop floor');
    assert.deepEqual(hunt.selected.net, { amount: '120.00', currency: 'EUR' });

    const given = await harness.call('POST', '/v1/hunt/search', {
      token,
      body: {
        query: 'cordless drill',
        urls: [`${pound.url}/products/cordless-combi-drill`],
        budget: { amount: 400, currency: 'EUR' },
      },
    });
    assert.equal(given.status, 200, given.text);
    const combi = given.body.candidates.find((c: any) => c.title === 'Cordless Combi Drill 18V');
    assert.deepEqual([combi.eligible, combi.foundBy, combi.netInBudgetCurrency.amount], [true, ['urls'], '332.51']);
  });
});
