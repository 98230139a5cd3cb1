import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('resolve step: triage of the claims it is given (HTTP → queue → worker → Postgres)', () => {
  let token: string;
  before(async () => ({ token } = await harness.account()));

  it(
    'the tax-office text is likelyScam/high with four signals; evidence that is only the claim is not ' + 'sourceBound',
    async () => {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: {
          request: 'Is this text from the tax office a scam? Pay 300 USD in gift cards today or you will be arrested',
          domainRoute: ['resolve'],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'ready');
      const out = res.body.results.resolve;
      assert.deepEqual([out.risk.label, out.risk.severity], ['likelyScam', 'high']);
      assert.deepEqual(out.triage.evidenceMap.map((e: any) => e.ruleId).sort(), [
        'impersonation.agency',
        'pay.giftCard',
        'pressure.deadline',
        'threat.arrest',
      ]);
      const card = res.body.proofCard;
      assert.notEqual(card.evidenceStatus, 'sourceBound');
      assert.equal(card.evidenceStatus, 'unverified');
      assert.ok(card.confidence < 0.5, `confidence ${card.confidence}`);
      assert.ok(
        card.openQuestions.some((q: string) => /call-back/.test(q)),
        JSON.stringify(card.openQuestions),
      );
      assert.equal(card.recommendedRestraint, 'escalateBeforeActing');
      const stored = await harness.call('GET', `/v1/runs/${res.body.runId}`, { token });
      assert.equal(stored.status, 200);
    },
  );

  it(
    'documents in metadata are triaged with the claim: their contradictions are source-bound and contradict ' +
      'the card',
    async () => {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: {
          request: 'audit this: I was told the invoice total is 1,200 EUR',
          domainRoute: ['resolve'],
          metadata: {
            documents: [
              'Invoice INV-88\nPayee: Weber GmbH\nTotal: 1,250.00 EUR',
              'Payee: Weber GmbH\nTotal: 1,250.00 EUR',
            ],
          },
        },
      });
      assert.equal(res.status, 200, res.text);
      const out = res.body.results.resolve;
      assert.deepEqual(
        out.contradictions.map((c: any) => [c.kind, c.first.span.text, c.second.span.text]),
        [['amount', '1,200 EUR', '1,250.00 EUR']],
      );
      assert.equal(res.body.proofCard.evidenceStatus, 'contradicted');
      assert.equal(out.audited.documents, 2);
    },
  );
});
