import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('hunt: catalog import and search', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it('imports JSON listings and CSV, lists them per account', async () => {
    const json = await harness.call('POST', '/v1/hunt/catalog/import', {
      token: a.token,
      body: {
        listings: [
          {
            title: 'Trail running shoes',
            price: 95,
            vendor: 'RunCo',
            url: 'https://run.example/trail',
            tags: ['shoes', 'running'],
          },
          {
            title: 'Road running shoes',
            price: 120,
            fees: 10,
            vendor: 'RunCo',
            url: 'https://run.example/road',
            tags: ['shoes'],
          },
        ],
      },
    });
    assert.equal(json.status, 201, json.text);
    assert.equal(json.body.imported, 2);
    const csv =
      'title,price,fees,currency,vendor,url,tags\nHiking ' +
      'boots,150,0,USD,Alpine,https://alp.example/boots,shoes;hiking\nRunning ' +
      'socks,12,3,USD,RunCo,,socks;running\n';
    const fromCsv = await harness.call('POST', '/v1/hunt/catalog/import', { token: a.token, body: { csv } });
    assert.equal(fromCsv.status, 201, fromCsv.text);
    assert.equal(fromCsv.body.imported, 2);
    const list = await harness.call('GET', '/v1/hunt/catalog', { token: a.token });
    assert.equal(list.body.listings.length, 4);
    assert.deepEqual(list.body.listings.find((l: any) => l.title === 'Hiking boots').tags, ['shoes', 'hiking']);
    assert.equal((await harness.call('GET', '/v1/hunt/catalog', { token: b.token })).body.listings.length, 0);
  });

  it('rejects the whole import when a row is invalid, naming the rows', async () => {
    const res = await harness.call('POST', '/v1/hunt/catalog/import', {
      token: a.token,
      body: {
        listings: [
          { title: 'ok', price: 1 },
          { title: '', price: -5 },
        ],
      },
    });
    assert.equal(res.status, 400);
    // A listing is checked against CatalogListing: the paths name the row (from 0) and its fields.
    assert.deepEqual(
      [...new Set(res.body.details.map((d: any) => d.path.split('/').slice(0, 3).join('/')))],
      ['/listings/1'],
      res.text,
    );
    const csvRow = await harness.call('POST', '/v1/hunt/catalog/import', {
      token: a.token,
      body: { csv: 'title,price\nok,1\nfree,-5\n' },
    });
    assert.equal(csvRow.status, 400);
    assert.equal(csvRow.body.details.rejected[0].row, 2, 'a CSV row is named by its number (from 1)');
    const bad = await harness.call('POST', '/v1/hunt/catalog/import', {
      token: a.token,
      body: { csv: 'title,price\n"unclosed,5\n' },
    });
    assert.equal(bad.status, 400);
    assert.equal((await harness.call('POST', '/v1/hunt/catalog/import', { token: a.token, body: {} })).status, 400);
    assert.equal(
      (await harness.call('GET', '/v1/hunt/catalog', { token: a.token })).body.listings.length,
      4,
      'nothing of the rejected imports was stored',
    );
  });

  it('POST /v1/hunt/search ranks by full text, filters by budget, reports sources', async () => {
    const res = await harness.call('POST', '/v1/hunt/search', {
      token: a.token,
      body: { query: 'running shoes', budget: { maxUsd: 110 }, sources: ['catalog', 'ebay'] },
    });
    assert.equal(res.status, 200);
    const titles = res.body.candidates.map((c: any) => c.title);
    assert.deepEqual(titles.slice(0, 2).sort(), ['Road running shoes', 'Trail running shoes']);
    const road = res.body.candidates.find((c: any) => c.title === 'Road running shoes');
    assert.deepEqual([road.net, road.eligible, road.source], [{ amount: '130.00', currency: 'USD' }, false, 'catalog']);
    const trail = res.body.candidates.find((c: any) => c.title === 'Trail running shoes');
    assert.equal(trail.eligible, true);
    assert.equal(res.body.candidates[0].title, 'Trail running shoes', 'eligible first');
    assert.equal(res.body.sourceTelemetry.catalog.status, 'ok');
    assert.equal(res.body.sourceTelemetry.ebay.status, 'unavailable');
  });

  it('search: 400 without query, 401 without token, another account sees none of these listings', async () => {
    assert.equal(
      (await harness.call('POST', '/v1/hunt/search', { token: a.token, body: { budget: { maxUsd: 5 } } })).status,
      400,
    );
    assert.equal((await harness.call('POST', '/v1/hunt/search', { body: { query: 'shoes' } })).status, 401);
    assert.equal(
      (await harness.call('POST', '/v1/hunt/search', { token: b.token, body: { query: 'running shoes' } })).body
        .candidates.length,
      0,
    );
  });
});
