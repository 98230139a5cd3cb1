import assert from 'node:assert/strict';
import { auditPolicy, checkRule } from '../../jobs/resolve/policy-audit.js';
import { parseRule } from '../../jobs/resolve/policy-parse.js';

const INVOICE = [
  'INVOICE INV-2026-014',
  'Supplier: Acme GmbH',
  'Hauptstr. 1, 10115 Berlin, Germany',
  'Bill to: Foo SARL',
  '12 rue de la Paix, Paris, France',
  '',
  'Invoice date: 2 March 2026',
  'Delivery date: 15 April 2026',
  'Subtotal: 4,000.00 EUR',
  'Total due: 4,760.00 EUR',
  'Payable within 14 days.',
].join('\n');
const QUOTE = 'Quote Q-77\nPayable to Globex Corporation\nTotal: 6,200.00 EUR\nPayment terms: Net 60';
const CONTRACT = 'SERVICE AGREEMENT\nBetween Acme GmbH and Foo SARL.\nSignature: ______________';
const W9 = 'Form W-9 (Rev. March 2024)\nRequest for Taxpayer Identification Number and Certification';
const docs = (...texts: string[]) => texts.map((text, i) => ({ source: `document[${i}]`, text }));
/** The check of one rule: its status and the text of the span that decided it. */
const judge = (rule: string, ...texts: string[]) => {
  const [c] = checkRule(rule, docs(...texts));
  return [c!.status, c!.evidence[0]?.span.text ?? null];
};

describe('policy rules: read as checks', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['payment must not exceed 5,000 EUR', { kind: 'amountLimit', op: 'lte', limit: 5000, currency: 'EUR' }],
    ['total below $12k', { kind: 'amountLimit', op: 'lt', limit: 12000, currency: 'USD' }],
    ['max 3,000 per invoice', { kind: 'amountLimit', op: 'lte', limit: 3000, currency: null }],
    ['No single invoice may be over €10,000', { kind: 'amountLimit', op: 'lte', limit: 10000, currency: 'EUR' }],
    ['minimum order value 500 EUR', { kind: 'amountLimit', op: 'gte', limit: 500 }],
    ['vendor must be one of Acme, Globex', { kind: 'allowedVendors', names: ['Acme', 'Globex'] }],
    ['Only pay Acme Ltd or Globex Corporation', { kind: 'allowedVendors', names: ['Acme Ltd', 'Globex Corporation'] }],
    ['only suppliers in Germany or Austria', { kind: 'allowedCountries', codes: ['DE', 'AT'] }],
    ['German or Austrian suppliers only', { kind: 'allowedCountries', codes: ['DE', 'AT'] }],
    ['no vendors from Russia or Belarus', { kind: 'excludedCountries', codes: ['RU', 'BY'] }],
    ['delivery no later than 2026-03-31', { kind: 'dateLimit', op: 'onOrBefore', date: '2026-03-31' }],
    ['certificate must be valid until 31 December 2026', { kind: 'dateLimit', op: 'onOrAfter', date: '2026-12-31' }],
    ['invoice due within 30 days', { kind: 'period', op: 'lte', days: 30 }],
    ['Delivery within 2 weeks of the order', { kind: 'period', op: 'lte', days: 14 }],
    ['Payment terms: net 45', { kind: 'period', op: 'lte', days: 45 }],
    [
      'a signed contract and a W-9 are required',
      {
        kind: 'requiredDocument',
        items: [
          { signed: true, name: 'contract' },
          { signed: false, name: 'W-9' },
        ],
      },
    ],
    ['must include a certificate of insurance', { kind: 'requiredDocument' }],
    ['Invoices above 2,500 EUR need approval by finance', { kind: 'unparsed' }],
    ['at least 3 quotes', { kind: 'unparsed' }],
    ['ISO 27001 certification', { kind: 'unparsed' }],
    ['delivery by March 31', { kind: 'unparsed', reason: 'its date has no year' }],
  ];
  for (const [rule, expected] of cases)
    it(`"${rule}" is ${String(expected.kind)}`, () => {
      const parsed = parseRule(rule) as unknown as Record<string, unknown>;
      for (const [k, v] of Object.entries(expected)) assert.deepEqual(parsed[k], v, `${rule}: ${k}`);
    });
});

describe('policy rules: met, broken or open, with the span that decides', () => {
  it('words alone meet nothing: an invoice of 6,000 EUR that says "payment" and "exceed" breaks a 5,000 cap', () => {
    const doc = 'Payment must not exceed 5,000 EUR per our policy.\nInvoice 9\nTotal due: 6,000.00 EUR';
    assert.deepEqual(judge('payment must not exceed 5,000 EUR', doc), ['broken', '6,000.00 EUR']);
    assert.deepEqual(judge('payment must not exceed 5,000 EUR', INVOICE), ['met', '4,760.00 EUR']);
    assert.deepEqual(judge('payment must not exceed 5,000 EUR', 'We exceed expectations on every payment.'), [
      'open',
      null,
    ]);
  });

  it('amounts: the labelled total decides; another currency is undecided, not converted; "together" sums', () => {
    assert.deepEqual(judge('max 3,000 per invoice', INVOICE), ['broken', '4,760.00 EUR']);
    assert.deepEqual(judge('total below $12k', INVOICE), ['open', '4,760.00 EUR']);
    assert.equal(checkRule('total below $12k', docs(INVOICE))[0]!.evidence[0]!.verdict, 'undecided');
    assert.deepEqual(judge('total below 12k EUR', INVOICE, QUOTE), ['met', '4,760.00 EUR']);
    assert.deepEqual(judge('spend cap of 10,000 EUR combined', INVOICE, QUOTE), ['broken', '4,760.00 EUR']);
  });

  it('amounts: a rule naming a line ("freight charges") is judged on that line; cover is no total', () => {
    // found from outside (issue 28 item 7): the invoice total judged "freight", a certificate's cover broke a cap
    const invoice = [
      'Invoice 51',
      'Supplier: Nordlicht Logistik GmbH',
      'Freight: 250.00 EUR',
      'Pallets (14): 8,950.00 EUR',
      'Total: 9,200.00 EUR',
    ].join('\n');
    const coi = 'Certificate of Insurance\nInsured: Nordlicht Logistik GmbH\nCoverage: cargo liability 1,000,000 EUR';
    assert.deepEqual(judge('Freight charges should be at least 300 EUR', invoice, coi), ['broken', '250.00 EUR']);
    assert.deepEqual(judge('Freight charges must not exceed 300 EUR', invoice), ['met', '250.00 EUR']);
    assert.deepEqual(judge('Insurance fees must not exceed 100 EUR', invoice), ['open', null]);
    assert.deepEqual(judge('Each invoice must stay under 10k EUR', invoice, coi), ['met', '9,200.00 EUR']);
    assert.deepEqual(judge('The order total may not be more than 8,200 EUR', coi), ['open', null]);
    assert.deepEqual(parseRule('Freight charges should be at least 300 EUR'), {
      kind: 'amountLimit',
      op: 'gte',
      limit: 300,
      currency: 'EUR',
      scope: 'each',
      item: 'freight',
    });
  });

  it('vendors: a labelled supplier or payee, legal forms aside; a name not on the list breaks', () => {
    assert.deepEqual(judge('vendor must be one of Acme, Globex', INVOICE, QUOTE), ['met', 'Acme GmbH']);
    assert.deepEqual(judge('vendor must be one of Acme, Initech', INVOICE, QUOTE), ['broken', 'Globex Corporation']);
    assert.deepEqual(judge('vendor must be one of Acme, Globex', 'Thanks for choosing Acme and Globex!'), [
      'open',
      null,
    ]);
    const byName = checkRule('only pay Initech', [{ source: 'vendorName', text: 'Acme Ltd' }])[0]!;
    assert.deepEqual([byName.status, byName.evidence[0]!.source], ['broken', 'vendorName']);
  });

  it("countries: the vendor's address, IBAN or phone, not the customer's block", () => {
    assert.deepEqual(judge('only suppliers in Germany or Austria', INVOICE), ['met', 'Germany']);
    assert.deepEqual(judge('only suppliers in France', INVOICE), ['broken', 'Germany']);
    const iban = 'Supplier: Northwind Ltd\nIBAN GB33BUKB20201555555555';
    assert.deepEqual(judge('only suppliers in Germany or Austria', iban), ['broken', 'GB33BUKB20201555555555']);
    assert.deepEqual(judge('no vendors from Russia or Belarus', 'Supplier: X\nPhone +7 495 123-45-67'), [
      'broken',
      '+7 495 123-45-67',
    ]);
  });

  it('dates and periods: the date labelled with the subject; periods stated or counted from the invoice date', () => {
    assert.deepEqual(judge('delivery no later than 2026-03-31', INVOICE), ['broken', '15 April 2026']);
    assert.deepEqual(judge('delivery no later than 2026-04-30', INVOICE), ['met', '15 April 2026']);
    assert.deepEqual(judge('invoice due within 30 days', INVOICE), ['met', '14 days']);
    assert.deepEqual(judge('invoice due within 30 days', QUOTE), ['broken', 'Net 60']);
    const counted = 'Invoice date: 1 March 2026\nDue date: 15 April 2026';
    assert.deepEqual(judge('invoice due within 30 days', counted)[0], 'broken');
    assert.deepEqual(judge('delivery no later than 2026-03-31', QUOTE), ['open', null]);
  });

  it('required documents: one check each, by heading; a blank signature line breaks "signed"', () => {
    const [contract, w9] = checkRule('a signed contract and a W-9 are required', docs(INVOICE, CONTRACT, W9));
    assert.deepEqual(
      [contract!.status, contract!.evidence[0]!.source, contract!.evidence[0]!.span.text],
      ['broken', 'document[1]', 'Signature: ______________'],
    );
    assert.deepEqual([w9!.status, w9!.evidence[0]!.span.text], ['met', 'Form W-9 (Rev. March 2024)']);
    const signed = CONTRACT.replace('Signature: ______________', 'Signed by: Jane Doe, CEO');
    assert.equal(checkRule('a signed contract is required', docs(signed))[0]!.status, 'met');
    const mention = checkRule(
      'must include a certificate of insurance',
      docs('Please send your certificate of insurance.'),
    );
    assert.deepEqual([mention[0]!.status, mention[0]!.evidence], ['open', []]);
    assert.match(mention[0]!.detail, /document\[0\] only mention it/);
  });

  it('an audit counts checks, lists unmet rules, and never meets a rule it cannot read', () => {
    const a = auditPolicy(['ISO 27001 certification', 'max 5,000 EUR per invoice', 'a W-9 is required'], [INVOICE]);
    assert.deepEqual([a.checked, a.met, a.broken, a.open], [3, 1, 0, 2]);
    assert.deepEqual(a.unmet, ['ISO 27001 certification', 'a W-9 is required']);
    assert.deepEqual(
      a.checks.map((c) => [c.kind, c.status]),
      [
        ['unparsed', 'open'],
        ['amountLimit', 'met'],
        ['requiredDocument', 'open'],
      ],
    );
    for (const c of a.checks)
      for (const e of c.evidence) assert.equal(INVOICE.slice(e.span.start, e.span.end), e.span.text);
  });
});
