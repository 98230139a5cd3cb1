import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cancelRun } from '../../jobs/orchestrator/run-control.js';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { insertListings } from '../../jobs/hunt/catalog-repository.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { pollUntilRest } from '../support/runs.js';
import { startShop, type ShopServer } from '../support/shop-pages.js';

describe('hunt over the web in a run: choices, a clear winner, progress and cancel while a page loads', () => {
  let shop: ShopServer;
  let token: string;
  let accountId: string;
  const at = (path: string) => `${shop.url}${path}`;
  const run = (body: Record<string, unknown>) =>
    harness.call('POST', '/v1/orchestrator/run', { token, body: { domainRoute: ['hunt'], ...body } });

  before(async () => {
    shop = await startShop({ slowMs: 60_000 });
    ({ token, accountId } = await harness.account());
    await insertListings(harness.deps.db, accountId, [
      {
        title: 'Cordless drill, refurbished',
        price: 89,
        fees: 6,
        currency: 'USD',
        vendor: 'Back Room Tools',
        url: 'https://backroom.example/drill',
        tags: ['tools'],
      },
    ]);
  });
  after(() => shop.stop());

  it(
    'a browse request with competing eligible offers rests at NEEDS_INPUT with choices bound to their pages; ' +
      'resuming selects one',
    async () => {
      const pages = [
        '/tools/drill-pro',
        '/tools/drill-compact',
        '/tools/drill-budget',
        '/tools/drill-hammer',
        '/tools/drill-clearance',
        '/tools/drill-og',
        '/tools/gone',
      ];
      const first = await run({
        request: 'find me a drill under $200',
        urls: pages.map(at),
        conversationId: `conv-web-${Date.now()}`,
      });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.status, 'NEEDS_INPUT');
      const hunt = first.body.results.hunt;
      assert.equal(hunt.inputKind, 'choice');
      const titles = hunt.choices.map((c: any) => c.title);
      assert.deepEqual(
        titles,
        [
          'Cordless drill, refurbished',
          'Compact 12V Drill Driver',
          'Brushless Impact Drill 20V',
          'ProDrive 20V Cordless Drill',
        ],
        'eligible offers of every source, cheapest net first',
      );
      const pro = hunt.choices.find((c: any) => c.title === 'ProDrive 20V Cordless Drill');
      assert.deepEqual(
        [pro.price, pro.currency, pro.net, pro.url],
        [149, 'USD', { amount: '158.99', currency: 'USD' }, at('/tools/drill-pro')],
      );
      assert.equal(
        hunt.sourceTelemetry.web.errors[0].reason,
        'httpStatus',
        'the 404 page is telemetry, not a failed run',
      );
      assert.equal(hunt.sourceTelemetry.catalog.matched, 1);
      assert.ok(hunt.ranking.startsWith('Eligible candidates first'));

      const events = (await harness.call('GET', `/v1/runs/${first.body.runId}/events`, { token })).text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const pageLines = events.filter((e) => e.type === 'domainStream' && e.data?.url);
      assert.equal(pageLines.length, pages.length, 'one domainStream line per page read');
      const proLine = pageLines.find((e) => e.data.url === at('/tools/drill-pro'));
      assert.match(proLine.message, /^Read 127\.0\.0\.1:\d+: 1 offer\(s\), 1 eligible$/);
      assert.match(proLine.data.snapshotHash, /^[0-9a-f]{64}$/);
      assert.match(
        pageLines.find((e) => e.data.url === at('/tools/gone')).message,
        /Could not use .*answered HTTP 404/,
      );

      const resumed = await harness.call('POST', `/v1/runs/${first.body.runId}/resume`, {
        token,
        body: { itemId: pro.itemId, action: 'buy' },
      });
      assert.equal(resumed.status, 202, resumed.text);
      const done = await pollUntilRest(token, first.body.runId);
      // `buy` continues into pay, which rests for a mandate this account has not granted.
      assert.equal(done.status, 'awaitingApproval');
      assert.deepEqual(
        [
          done.result.results.hunt.selected.itemId,
          done.result.results.hunt.selected.url,
          done.result.results.hunt.action,
        ],
        [pro.itemId, at('/tools/drill-pro'), 'buy'],
      );
    },
  );

  it('one clear winner answers directly, without a choice', async () => {
    const { token: fresh } = await harness.account(); // no catalog: only the pages compete
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token: fresh,
      body: {
        request: 'find me a drill under $200',
        domainRoute: ['hunt'],
        urls: ['/tools/drill-pro', '/tools/drill-budget', '/tools/drill-hammer', '/tools/drill-clearance'].map(at),
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'ready');
    const hunt = res.body.results.hunt;
    assert.equal(hunt.selected.title, 'ProDrive 20V Cordless Drill');
    assert.equal(hunt.choices, undefined);
    assert.deepEqual(
      hunt.candidates
        .filter((c: any) => !c.eligible)
        .map((c: any) => c.title)
        .sort(),
      ['Budget Corded Drill', 'Clearance 18V Drill', 'SDS Rotary Hammer Drill'],
    );
    assert.equal(res.body.proofCard.evidenceStatus, 'sourceBound', 'every claim names the page it was read from');
  });

  it('a URL that is not http(s) is refused at submission (400)', async () => {
    const res = await run({ request: 'find me a drill', urls: ['ftp://files.example/drill'] });
    assert.equal(res.status, 400);
    assert.equal(res.body.details[0].path, '/urls/0');
  });

  it('a slow page: progress after the quiet period, and cancel closes the connection to the shop', async () => {
    const deps = createDeps(
      harness.configWith({ QUEUE_PREFIX: `{awp-huntweb-${randomBytes(3).toString('hex')}}`, PROGRESS_QUIET_MS: '200' }),
      createLogger('silent'),
    );
    const workers = startWorkers(deps, ['hunt', 'orchestrator']);
    try {
      const { accountId: owner, tokenId } = await harness.account();
      const submitted = await submitRun(
        deps,
        { accountId: owner, tokenId, scopes: [], plan: 'team', activated: true },
        { request: 'find a drill', domainRoute: ['hunt'], urls: [at('/slow/cancel-me')] },
      );
      const events = () => harness.deps.db('run_events').where({ run_id: submitted.id }).orderBy('seq');
      await until(events, (rows) => rows.some((e) => e.type === 'progress'));
      assert.ok(shop.requests.includes('/slow/cancel-me'), 'the page is being read');
      assert.deepEqual(shop.abandoned, []);
      await cancelRun(deps, owner, submitted.id);
      await until(
        () => shop.abandoned,
        (a) => a.includes('/slow/cancel-me'),
      );
      const rested = await until(
        () => harness.deps.db('runs').where({ id: submitted.id }).first(),
        (r) => r.status === 'canceled',
      );
      assert.equal(rested.status, 'canceled');
      await until(
        () => harness.deps.db('run_steps').where({ run_id: submitted.id }).first(),
        (s) => s?.status === 'canceled',
      );
      const progress = (await events()).filter((e) => e.type === 'progress');
      assert.match(progress[0].data.message, /^Still working on hunt: \d+ s so far$/);
    } finally {
      for (const w of workers) await w.stop();
      await deps.close();
    }
  });
});
