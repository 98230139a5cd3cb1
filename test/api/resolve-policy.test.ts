import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

const INVOICE = [
  'INVOICE INV-2026-014',
  'Supplier: Acme GmbH',
  'Hauptstr. 1, 10115 Berlin, Germany',
  'Invoice date: 2 March 2026',
  'Delivery date: 15 April 2026',
  'Total due: 4,760.00 EUR',
  'Payable within 14 days.',
].join('\n');

describe('POST /v1/resolve/policyAudit', () => {
  let a: { token: string };
  let b: { token: string };
  const audit = (body: unknown, token: string | null = a.token) =>
    harness.call('POST', '/v1/resolve/policyAudit', { token: token ?? undefined, body });
  const newTask = async (token: string) =>
    (await harness.call('POST', '/v1/tasks', { token, body: { domain: 'resolve', inData: {} } })).body.task
      .taskId as string;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it('reads each rule as a check and answers met, broken or open with the deciding span', async () => {
    const taskId = await newTask(a.token);
    const res = await audit({
      taskId,
      rules: [
        'payment must not exceed 5,000 EUR',
        'vendor must be one of Acme, Globex',
        'only suppliers in Germany or Austria',
        'delivery no later than 2026-03-31',
        'invoice due within 30 days',
        'a signed contract and a W-9 are required',
        'ISO 27001 certification',
      ],
      documents: [INVOICE],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.taskId, taskId);
    const p = res.body.policy;
    assert.deepEqual(
      p.checks.map((c: any) => [c.kind, c.status, c.evidence[0]?.span.text ?? null]),
      [
        ['amountLimit', 'met', '4,760.00 EUR'],
        ['allowedVendors', 'met', 'Acme GmbH'],
        ['allowedCountries', 'met', 'Germany'],
        ['dateLimit', 'broken', '15 April 2026'],
        ['period', 'met', '14 days'],
        ['requiredDocument', 'open', null],
        ['requiredDocument', 'open', null],
        ['unparsed', 'open', null],
      ],
    );
    assert.deepEqual([p.checked, p.met, p.broken, p.open], [7, 4, 1, 3]);
    for (const c of p.checks)
      for (const e of c.evidence) assert.equal(INVOICE.slice(e.span.start, e.span.end), e.span.text, c.rule);
    assert.equal(p.checks[3].expected, 'the delivery date is on or before 2026-03-31');
    assert.deepEqual(p.unmet, [
      'delivery no later than 2026-03-31',
      'a signed contract and a W-9 are required',
      'ISO 27001 certification',
    ]);
  });

  it('the vendor name given is checked as a vendor; no documents leave the rest open', async () => {
    const res = await audit({ rules: ['only pay Globex', 'max 3,000 per invoice'], vendorName: 'Acme Ltd' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.policy.checks.map((c: any) => [c.status, c.evidence[0]?.source ?? null]),
      [
        ['broken', 'vendorName'],
        ['open', null],
      ],
    );
    assert.equal(res.body.taskId, null);
  });

  it('the response vocabulary is in OpenAPI: kinds, statuses and verdicts as enums', async () => {
    const spec = (await harness.call('GET', '/openapi.json')).body;
    const check = spec.components.schemas.PolicyCheck;
    assert.ok(check.properties.kind.enum.includes('allowedCountries'));
    assert.deepEqual(check.properties.status.enum, ['met', 'broken', 'open']);
    assert.deepEqual(check.properties.evidence.items.properties.verdict.enum, ['meets', 'breaks', 'undecided']);
    assert.ok(spec.paths['/v1/resolve/policyAudit'].post);
  });

  it('400 without rules or with malformed fields, 401 without a token', async () => {
    const missing = await audit({ documents: ['x'] });
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body.details), /rules/);
    assert.equal((await audit({ rules: [] })).status, 400);
    assert.equal((await audit({ rules: ['x'], documents: 'not a list' })).status, 400);
    assert.equal((await audit({ rules: ['x'.repeat(501)] })).status, 400);
    assert.equal((await audit({ rules: ['x'] }, null)).status, 401);
  });

  it("404 for an unknown task and for another account's task", async () => {
    assert.equal((await audit({ rules: ['max 5 EUR'], taskId: 'task_doesnotexist' })).status, 404);
    const theirs = await newTask(b.token);
    assert.equal((await audit({ rules: ['max 5 EUR'], taskId: theirs })).status, 404);
  });
});
