import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('resolve step: policy rules checked against the documents (HTTP → queue → worker → Postgres)', () => {
  let token: string;
  before(async () => ({ token } = await harness.account()));

  it('a broken rule cites its span, an unreadable one stays open, and both become open questions', async () => {
    const res = await harness.call('POST', '/v1/workflows/templates/vendorDueDiligence/run', {
      token,
      body: {
        templateId: 'vendorDueDiligence',
        vendorName: 'Initech LLC',
        documents: ['Invoice 77\nPayable to Initech LLC\nTotal due: 6,000.00 EUR\nPayment must not exceed 5,000 EUR.'],
        policyRules: ['payment must not exceed 5,000 EUR', 'vendor must be one of Acme, Globex', 'be nice'],
      },
    });
    assert.equal(res.status, 200, res.text);
    const policy = res.body.results.resolve.policyRules;
    assert.deepEqual(
      policy.checks.map((c: any) => [c.kind, c.status, c.evidence[0]?.span.text ?? null]),
      [
        ['amountLimit', 'broken', '6,000.00 EUR'],
        ['allowedVendors', 'broken', 'Initech LLC'],
        ['unparsed', 'open', null],
      ],
    );
    assert.deepEqual(policy.unmet, [
      'payment must not exceed 5,000 EUR',
      'vendor must be one of Acme, Globex',
      'be nice',
    ]);
    const questions: string[] = res.body.proofCard.openQuestions;
    assert.ok(
      questions.some((q) => q.startsWith('Policy rule "payment must not exceed 5,000 EUR" is broken')),
      JSON.stringify(questions),
    );
    assert.ok(questions.some((q) => q.startsWith('Policy rule "be nice" is open')));
    const stored = await harness.call('GET', `/v1/runs/${res.body.runId}`, { token });
    assert.equal(stored.status, 200);
    assert.equal(stored.body.run.result.results.resolve.policyRules.broken, 2, stored.text);
  });
});
