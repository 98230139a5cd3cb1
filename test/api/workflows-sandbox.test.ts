import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

describe('workflow templates, nlp, sandbox and local benchmark', () => {
  let a: { token: string; accountId: string };
  before(async () => {
    a = await harness.account();
    await seedCatalog(a.accountId);
  });

  it('GET /v1/workflows/templates lists the four templates with schema refs that resolve', async () => {
    const res = await harness.call('GET', '/v1/workflows/templates');
    assert.deepEqual(res.body.templates.map((t: any) => t.templateId).sort(), [
      'auditDisputedClaim',
      'coordinateHumanProcess',
      'findBestFit',
      'vendorDueDiligence',
    ]);
    for (const t of res.body.templates) assert.equal((await harness.call('GET', t.schemaRef)).status, 200, t.schemaRef);
  });

  it(
    'vendorDueDiligence uses vendorName, documents and ' + 'policyRules and answers in the orchestrator shape',
    async () => {
      const res = await harness.call('POST', '/v1/workflows/templates/vendorDueDiligence/run', {
        token: a.token,
        body: {
          templateId: 'vendorDueDiligence',
          vendorName: 'Acme Ltd',
          documents: [
            'Acme Ltd invoice total $1,200. Payment by wire transfer within 24 hours or the account will be suspended.',
          ],
          policyRules: ['ISO 27001 certification', 'payment must not exceed 1,000 USD'],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'ready');
      assert.deepEqual(res.body.route, ['resolve']);
      const out = res.body.results.resolve;
      assert.equal(out.risk.severity, 'high');
      assert.deepEqual(out.policyRules.unmet, ['ISO 27001 certification', 'payment must not exceed 1,000 USD']);
      assert.deepEqual(
        out.policyRules.checks.map((c: any) => [c.kind, c.status]),
        [
          ['unparsed', 'open'],
          ['amountLimit', 'broken'],
        ],
      );
      assert.ok(res.body.proofCard.openQuestions.some((q: string) => q.includes('ISO 27001')));
      assert.equal(res.body.proofCard.recommendedRestraint, 'escalateBeforeActing');
    },
  );

  it('findBestFit runs hunt then resolve; coordinateHumanProcess runs through proxy', async () => {
    const fit = await harness.call('POST', '/v1/workflows/templates/findBestFit/run', {
      token: a.token,
      body: { templateId: 'findBestFit', request: 'espresso machine', budget: { maxUsd: 200 } },
    });
    assert.deepEqual([fit.status, fit.body.route], [200, ['hunt', 'resolve']]);
    assert.equal(fit.body.results.hunt.candidates.filter((c: any) => c.eligible).length, 1);
    const human = await harness.call('POST', '/v1/workflows/templates/coordinateHumanProcess/run', {
      token: a.token,
      body: { templateId: 'coordinateHumanProcess', request: 'call the bank' },
    });
    assert.deepEqual(
      [human.status, human.body.status, human.body.route],
      [200, 'awaitingProxy', ['proxy']],
      human.text,
    );
  });

  it(
    'template run: 404 unknown template, 400 missing ' + 'template fields or mismatched id, 401 without token',
    async () => {
      assert.equal(
        (
          await harness.call('POST', '/v1/workflows/templates/nope/run', {
            token: a.token,
            body: { templateId: 'nope' },
          })
        ).status,
        404,
      );
      assert.equal(
        (
          await harness.call('POST', '/v1/workflows/templates/vendorDueDiligence/run', {
            token: a.token,
            body: { templateId: 'vendorDueDiligence' },
          })
        ).status,
        400,
      );
      assert.equal(
        (
          await harness.call('POST', '/v1/workflows/templates/vendorDueDiligence/run', {
            token: a.token,
            body: { templateId: 'findBestFit', vendorName: 'x' },
          })
        ).status,
        400,
      );
      assert.equal(
        (
          await harness.call('POST', '/v1/workflows/templates/vendorDueDiligence/run', {
            body: { templateId: 'vendorDueDiligence', vendorName: 'x' },
          })
        ).status,
        401,
      );
    },
  );

  it('POST /v1/tools/nlp explains the route, and detects a follow-up in a conversation', async () => {
    const res = await harness.call('POST', '/v1/tools/nlp', {
      token: a.token,
      body: { query: 'find a cheap espresso machine, then register a webhook connector for our CRM' },
    });
    assert.deepEqual(res.body.route, ['hunt', 'bridge']);
    assert.deepEqual(res.body.unavailableDomains, [], 'every domain runs (bridge has a step since issue 31)');
    assert.deepEqual(
      (
        await harness.call('POST', '/v1/tools/nlp', {
          token: a.token,
          body: { query: 'find a cheap espresso machine and pay for it' },
        })
      ).body.unavailableDomains,
      [],
    );
    assert.equal(res.body.classification.length, 12, 'every domain the router may pick (not benchmark) is scored');
    assert.match(res.body.why, /hunt/);
    await harness.call('POST', '/v1/orchestrator/run', {
      token: a.token,
      body: { request: 'shortlist espresso machines under $250 to choose one', conversationId: 'nlp-conv' },
    });
    const follow = await harness.call('POST', '/v1/tools/nlp', {
      token: a.token,
      body: { query: 'the second one', conversationId: 'nlp-conv' },
    });
    assert.equal(follow.body.followUp.detected, true);
    assert.equal(follow.body.followUp.previous.status, 'NEEDS_INPUT');
    assert.equal((await harness.call('POST', '/v1/tools/nlp', { token: a.token, body: {} })).status, 400);
    assert.equal((await harness.call('POST', '/v1/tools/nlp', { body: { query: 'x' } })).status, 401);
  });

  it('sandbox: each chaos mode behaves as named, deterministically, with no side effects', async () => {
    const before = await harness.deps.db('runs').count({ n: '*' }).first();
    const call = async (chaos: string) =>
      (await harness.call('POST', '/v1/sandbox/midnight-arbitrage', { body: { chaos } })).body;
    const normal = await call('');
    assert.equal(normal.status, 'settled');
    assert.equal(normal.receipt.status, 'settled');
    assert.deepEqual(await call(''), normal, 'deterministic');
    const slow = await call('latency');
    assert.equal(slow.status, 'settled');
    assert.ok(slow.vendorTelemetry.some((v: any) => v.latencyMs > 4000));
    const model = await call('modelError');
    assert.equal(model.decisionTree.selected.fallback, true);
    assert.ok(model.trace.some((t: any) => t.step === 'pricingModel' && t.status === 'failed'));
    const spend = await call('unauthorizedSpend');
    assert.deepEqual([spend.status, spend.receipt, spend.mandate.decision], ['refused', null, 'refused']);
    const freeze = await call('freeze');
    assert.deepEqual([freeze.status, freeze.receipt], ['frozen', null]);
    assert.equal(
      (await harness.call('POST', '/v1/sandbox/midnight-arbitrage', { body: { chaos: 'meteor' } })).status,
      400,
    );
    assert.deepEqual(await harness.deps.db('runs').count({ n: '*' }).first(), before);
  });

  it('POST /v1/benchmarks/local measures real figures; 401 without token', async () => {
    const res = await harness.call('POST', '/v1/benchmarks/local', { token: a.token, body: {} });
    assert.equal(res.status, 200);
    for (const key of ['validation', 'routing', 'sandboxRun', 'postgresRoundTrip', 'redisRoundTrip']) {
      assert.ok(res.body.figures[key].n > 0 && res.body.figures[key].opsPerSec > 0, key);
    }
    assert.equal((await harness.call('POST', '/v1/benchmarks/local', { body: {} })).status, 401);
  });
});
