import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('POST /v1/resolve/scamTriage', () => {
  let a: { token: string };
  let b: { token: string };
  const triage = (body: unknown, token: string | null = a.token) =>
    harness.call('POST', '/v1/resolve/scamTriage', { token: token ?? undefined, body });
  const newTask = async (token: string) =>
    (await harness.call('POST', '/v1/tasks', { token, body: { domain: 'resolve', inData: {} } })).body.task
      .taskId as string;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it(
    'answers the triage: risk, evidence map with spans, contradictions citing both spans, missing evidence, ' +
      'next action',
    async () => {
      const taskId = await newTask(a.token);
      const res = await triage({
        taskId,
        claim: 'Our supplier says to pay invoice 5521 of 8,400 GBP to their new bank details today. Is it real?',
        documents: [
          'Invoice 5521\nPayee: Northwind Supplies Ltd\nIBAN GB33BUKB20201555555555\nTotal: 8,400.00 GBP',
          'Please use our new account. Payee: Northwind Supplies Ltd\nIBAN GB82 WEST 1234 5698 7654 32',
        ],
        sender: 'accounts@northwind-supp1ies.com',
        urls: ['https://paypa1.com/invoice/5521'],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.taskId, taskId);
      const t = res.body.triage;
      assert.deepEqual(
        [t.risk.label, t.risk.severity, t.nextAction, t.recommendedRestraint, t.llm],
        ['likelyScam', 'critical', 'requestHumanReview', 'doNotEngage', 'notConfigured'],
      );
      const rules = t.evidenceMap.map((e: any) => `${e.ruleId}@${e.source}`);
      for (const r of [
        'bankDetails.changed@claim',
        'pressure.deadline@claim',
        'contradiction.bankDetails@document[1]',
        'lookalike.domain@https://paypa1.com/invoice/5521',
      ])
        assert.ok(rules.includes(r), `${r} in ${rules}`);
      const bank = t.contradictions.find((c: any) => c.kind === 'bankDetails');
      assert.deepEqual(
        [bank.first.span.text, bank.second.span.text, bank.between],
        ['GB33BUKB20201555555555', 'GB82 WEST 1234 5698 7654 32', 'documentVsDocument'],
      );
      assert.ok(t.missingEvidence.some((m: any) => m.kind === 'originalBankDetails' && m.decisive));
      assert.ok(t.confidence > 0 && t.confidence <= 1);
    },
  );

  it('a legitimate order confirmation is likelyLegitimate with severity none or low', async () => {
    const res = await triage({
      claim:
        'Amazon order confirmation: Order #113-5580311 for a desk lamp, $39.99, paid with Visa ending 4421 ' +
        'and $10.00 gift card balance. Arriving Thursday.',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.triage.risk.label, 'likelyLegitimate');
    assert.ok(['none', 'low'].includes(res.body.triage.risk.severity));
    assert.equal(res.body.taskId, null);
  });

  it('400 without a claim or with a malformed field, 401 without a token', async () => {
    const missing = await triage({ documents: ['x'] });
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body.details), /claim/);
    assert.equal((await triage({ claim: 'x', documents: 'not a list' })).status, 400);
    assert.equal((await triage({ claim: 'x', urls: [''] })).status, 400);
    assert.equal((await triage({ claim: 'x' }, null)).status, 401);
  });

  it("404 for an unknown task and for another account's task", async () => {
    const unknown = await triage({ claim: 'pay in gift cards', taskId: 'task_doesnotexist' });
    assert.equal(unknown.status, 404, unknown.text);
    const theirs = await newTask(b.token);
    const cross = await triage({ claim: 'pay in gift cards', taskId: theirs });
    assert.equal(cross.status, 404, cross.text);
  });
});
