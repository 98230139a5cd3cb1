import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

describe('run API and proof cards: errors and ownership', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  let runId: string;
  let cardId: string;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    await seedCatalog(a.accountId);
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token: a.token,
      body: {
        request: 'find the cheapest espresso machine under $250',
        domainRoute: ['hunt'],
        conversationId: 'c-api',
      },
    });
    runId = res.body.runId;
    cardId = res.body.proofCard.cardId;
  });

  it('POST /v1/orchestrator/run: 400 on a bad body, 401 without token, 400 on unknown domainRoute', async () => {
    const bad = await harness.call('POST', '/v1/orchestrator/run', { token: a.token, body: { request: '' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details[0].path, '/request');
    assert.equal((await harness.call('POST', '/v1/orchestrator/run', { body: { request: 'find x' } })).status, 401);
    assert.equal(
      (
        await harness.call('POST', '/v1/orchestrator/run', {
          token: a.token,
          body: { request: 'x', domainRoute: ['warp'] },
        })
      ).status,
      400,
    );
  });

  it("GET /v1/runs lists with filters and cursor pagination; only the caller's runs", async () => {
    await harness.call('POST', '/v1/orchestrator/run', {
      token: a.token,
      body: { request: 'audit it', domainRoute: ['resolve'] },
    });
    const page1 = await harness.call('GET', '/v1/runs?limit=1', { token: a.token });
    assert.equal(page1.status, 200);
    assert.equal(page1.body.runs.length, 1);
    assert.ok(page1.body.nextCursor);
    const page2 = await harness.call('GET', `/v1/runs?limit=1&cursor=${page1.body.nextCursor}`, { token: a.token });
    assert.notEqual(page2.body.runs[0].runId, page1.body.runs[0].runId);
    const byDomain = await harness.call('GET', '/v1/runs?domain=hunt', { token: a.token });
    assert.ok(byDomain.body.runs.every((r: any) => r.route.includes('hunt')));
    const byConv = await harness.call('GET', '/v1/runs?conversationId=c-api&status=ready', { token: a.token });
    assert.deepEqual(
      byConv.body.runs.map((r: any) => r.runId),
      [runId],
    );
    assert.equal((await harness.call('GET', '/v1/runs', { token: b.token })).body.runs.length, 0);
    assert.equal((await harness.call('GET', '/v1/runs?limit=0', { token: a.token })).status, 400);
    assert.equal((await harness.call('GET', '/v1/runs?createdAfter=yesterday', { token: a.token })).status, 400);
    assert.equal((await harness.call('GET', '/v1/runs')).status, 401);
  });

  for (const [method, suffix] of [
    ['GET', ''],
    ['GET', '/events'],
    ['POST', '/cancel'],
    ['POST', '/resume'],
  ] as const) {
    it(`${method} /v1/runs/{runId}${suffix}: 404 unknown, 404 for another account, 401 without token`, async () => {
      assert.equal(
        (
          await harness.call(method, `/v1/runs/run_missing${suffix}`, {
            token: a.token,
            body: method === 'POST' ? {} : undefined,
          })
        ).status,
        404,
      );
      const cross = await harness.call(method, `/v1/runs/${runId}${suffix}`, {
        token: b.token,
        body: method === 'POST' ? {} : undefined,
      });
      assert.equal(cross.status, 404);
      assert.equal(cross.body.error, 'notFound');
      assert.equal(
        (await harness.call(method, `/v1/runs/${runId}${suffix}`, { body: method === 'POST' ? {} : undefined })).status,
        401,
      );
    });
  }

  it('GET /v1/runs/{runId} shows steps with timings, the result and the proof card ref', async () => {
    const res = await harness.call('GET', `/v1/runs/${runId}`, { token: a.token });
    assert.equal(res.body.run.status, 'ready');
    assert.equal(res.body.run.proofCardId, cardId);
    assert.equal(res.body.run.routing.source, 'forced');
    assert.ok(res.body.run.steps[0].startedAt && res.body.run.steps[0].finishedAt);
    assert.equal(res.body.run.waitpoint, null);
  });

  it('resume and cancel of a resting, finished run are 409; a bad resume body is 400', async () => {
    assert.equal((await harness.call('POST', `/v1/runs/${runId}/resume`, { token: a.token, body: {} })).status, 409);
    assert.equal((await harness.call('POST', `/v1/runs/${runId}/cancel`, { token: a.token })).status, 409);
    assert.equal(
      (await harness.call('POST', `/v1/runs/${runId}/resume`, { token: a.token, body: { action: 'teleport' } })).status,
      400,
    );
    assert.equal(
      (await harness.call('GET', `/v1/runs/${runId}/events`, { token: a.token, headers: { 'last-event-id': 'abc' } }))
        .status,
      400,
    );
  });

  it(
    'proof cards: fetch; export service/v1 and ' + 'ledger/v1; audience redaction; 400, 401, 404, ' + 'cross-account',
    async () => {
      const card = await harness.call('GET', `/v1/audit/proofCards/${cardId}`, { token: a.token });
      assert.equal(card.status, 200);
      const service = await harness.call('POST', `/v1/audit/proofCards/${cardId}/export`, { token: a.token, body: {} });
      assert.equal(service.body.ledgerEntry.format, 'service/v1');
      assert.equal(service.body.ledgerEntry.proofCard.cardId, cardId);
      const ledger = await harness.call('POST', `/v1/audit/proofCards/${cardId}/export`, {
        token: a.token,
        body: { format: 'ledger/v1', includeRejectedPaths: false },
      });
      assert.deepEqual(Object.keys(ledger.body.ledgerEntry).sort(), [
        'citeRef',
        'confidence',
        'evidenceStatus',
        'exportedAt',
        'format',
        'rejectedPaths',
        'selectedOption',
      ]);
      assert.deepEqual(ledger.body.ledgerEntry.rejectedPaths, []);
      const withRejected = await harness.call('POST', `/v1/audit/proofCards/${cardId}/export`, {
        token: a.token,
        body: { format: 'ledger/v1' },
      });
      assert.ok(withRejected.body.ledgerEntry.rejectedPaths.length > 0, 'the over-budget machine is a rejected path');
      const board = await harness.call('POST', `/v1/audit/proofCards/${cardId}/export`, {
        token: a.token,
        body: { audience: 'board' },
      });
      assert.ok(!JSON.stringify(board.body.ledgerEntry.decision.evidence).includes('https://'));
      assert.equal(board.body.ledgerEntry.audience, 'board');
      const legal = await harness.call('POST', `/v1/audit/proofCards/${cardId}/export`, {
        token: a.token,
        body: { audience: 'legal' },
      });
      assert.equal(legal.body.ledgerEntry.privileged, true);
      assert.ok(JSON.stringify(legal.body.ledgerEntry).includes('https://'));
      assert.equal(
        (
          await harness.call('POST', `/v1/audit/proofCards/${cardId}/export`, {
            token: a.token,
            body: { format: 'pdf' },
          })
        ).status,
        400,
      );
      assert.equal((await harness.call('GET', `/v1/audit/proofCards/${cardId}`)).status, 401);
      assert.equal((await harness.call('GET', '/v1/audit/proofCards/pc_missing', { token: a.token })).status, 404);
      assert.equal((await harness.call('GET', `/v1/audit/proofCards/${cardId}`, { token: b.token })).status, 404);
      assert.equal(
        (await harness.call('POST', `/v1/audit/proofCards/${cardId}/export`, { token: b.token, body: {} })).status,
        404,
      );
    },
  );

  it('sandbox_ conversations run without a token against the sandbox catalog', async () => {
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      body: { request: 'find an espresso machine under $200', conversationId: 'sandbox_demo' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'ready');
    assert.ok(res.body.results.hunt.candidates.some((c: any) => c.title.includes('Espresso')));
    assert.equal(
      (await harness.call('POST', '/v1/orchestrator/run', { body: { request: 'find x', conversationId: 'prod_1' } }))
        .status,
      401,
    );
  });
});
