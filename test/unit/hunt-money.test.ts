import assert from 'node:assert/strict';
import { judge, comparisonOf, budgetFrom, searchTerms } from '../../jobs/hunt/logic.js';
import {
  compare,
  convertMinor,
  crossRate,
  currencyOfWord,
  decimalOf,
  fromMinor,
  parseBudget,
  toMinor,
  type RateTable,
} from '../../jobs/hunt/money.js';
import { parseEcbXml, SNAPSHOT } from '../../jobs/hunt/rates.js';

const ECB = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

describe('hunt money: currencies in requests, minor units, ECB conversions', () => {
  it('reads the budget a request states, in its currency (words, symbols, ISO codes, decimal commas)', () => {
    const cases: Array<[string, string, string] | [string, null]> = [
      ['Find a cordless drill under 400 euros', '400.00', 'EUR'],
      ['something below €400', '400.00', 'EUR'],
      ['under 400 EUR please', '400.00', 'EUR'],
      ['max £300.50', '300.50', 'GBP'],
      ['at most 250 pounds sterling', '250.00', 'GBP'],
      ['budget of CHF 1,200', '1200.00', 'CHF'],
      ['under 500 Swiss francs', '500.00', 'CHF'],
      ['less than 20000 yen', '20000', 'JPY'],
      ['below ¥15,800', '15800', 'JPY'],
      ['under $200', '200.00', 'USD'],
      ['up to 50 bucks', '50.00', 'USD'],
      ['less than 1.299,50 EUR', '1299.50', 'EUR'],
      ['under 400', '400.00', 'USD'],
      ['a drill', null],
    ];
    for (const [text, amount, currency] of cases) {
      const b = parseBudget(text);
      assert.deepEqual(b, amount === null ? null : { amount, currency }, text);
    }
    assert.equal(searchTerms('Find a cordless drill under 400 euros'), 'cordless drill');
    assert.equal(searchTerms('cheapest drill below €400 please'), 'drill');
    assert.deepEqual([currencyOfWord('€'), currencyOfWord('Euros'), currencyOfWord('quid')], ['EUR', 'EUR', 'GBP']);
  });

  it('keeps money in integer minor units of each currency and writes it back with its digits', () => {
    assert.equal(toMinor('149.99', 'USD'), 14999n);
    assert.equal(toMinor(0.1 + 0.2, 'USD'), 30n, 'a float sum is rounded once, to the cent');
    assert.equal(toMinor('15800', 'JPY'), 15800n);
    assert.equal(toMinor('1.005', 'EUR'), 101n, 'half up');
    assert.equal(toMinor('-1', 'EUR'), null);
    assert.deepEqual(
      [fromMinor(33890n, 'EUR'), fromMinor(5n, 'EUR'), fromMinor(19497n, 'JPY')],
      ['338.90', '0.05', '19497'],
    );
    assert.deepEqual(
      [decimalOf('1 299'), decimalOf('19,99'), decimalOf('1,299.50'), decimalOf('1,2,3')],
      ['1299', '19.99', '1299.50', null],
    );
  });

  it('converts through the euro at the dated ECB rates, naming the rate and its day', () => {
    assert.equal(SNAPSHOT.date, '2022-04-29');
    assert.equal(SNAPSHOT.source, ECB);
    assert.deepEqual(compare(27900n, 'GBP', 'EUR', SNAPSHOT), {
      amount: '332.51',
      currency: 'EUR',
      rate: '1.19178',
      rateDate: '2022-04-29',
      rateSource: ECB,
    });
    assert.equal(convertMinor(14999n, 'USD', 'JPY', SNAPSHOT), 19497n, '149.99 × 137.01 / 1.0540');
    assert.equal(convertMinor(40000n, 'EUR', 'USD', SNAPSHOT), 42160n);
    assert.equal(crossRate('EUR', 'GBP', SNAPSHOT), '0.83908');
    assert.deepEqual(compare(100n, 'EUR', 'EUR', SNAPSHOT)?.rate, null, 'same currency: no rate');
    assert.equal(compare(100n, 'XAU', 'EUR', SNAPSHOT), null, 'a currency the table lacks cannot be compared');
  });

  it('judges eligibility in the budget currency, saying how a converted net was reached', () => {
    const cmp = comparisonOf(parseBudget('under 400 euros'), SNAPSHOT);
    const base = { fees: 0, feeParts: [], unpricedFees: [], unclear: [], notes: [], availability: 'inStock' as const };
    const gbp = judge({ ...base, price: 279, currency: 'GBP' }, cmp);
    assert.deepEqual(
      [gbp.eligible, gbp.net, gbp.netInBudgetCurrency?.amount],
      [true, { amount: '279.00', currency: 'GBP' }, '332.51'],
    );
    assert.ok(gbp.reasons.includes('net £279.00 is €332.51 at 1.19178 EUR per GBP (ECB reference rate of 2022-04-29)'));
    const over = judge({ ...base, price: 349, currency: 'GBP' }, cmp);
    assert.equal(over.eligible, false);
    assert.ok(over.reasons.includes('net €415.93 is over the €400.00 budget'), over.reasons.join(' | '));
    const unknown = judge({ ...base, price: 10, currency: 'XAU' }, cmp);
    assert.equal(unknown.eligible, false);
    assert.match(unknown.reasons[0]!, /reference rates of 2022-04-29 have no XAU rate/);
    assert.deepEqual(budgetFrom({ maxUsd: 200 }), { amount: '200.00', currency: 'USD' }, 'the older form is USD');
    assert.deepEqual(budgetFrom({ amount: '400', currency: 'EUR' }), { amount: '400.00', currency: 'EUR' });
  });

  it("reads the ECB's eurofxref XML, refusing anything else", () => {
    const ns = 'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"';
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" ${ns}>
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube><Cube time='2022-04-29'><Cube currency='USD' rate='1.0540'/><Cube currency='GBP' rate='0.83908'/></Cube></Cube>
</gesmes:Envelope>`;
    const table: RateTable = parseEcbXml(xml, ECB);
    assert.deepEqual(table, { date: '2022-04-29', source: ECB, rates: { USD: '1.0540', GBP: '0.83908' } });
    assert.throws(() => parseEcbXml('<html>Maintenance</html>', ECB), /not the ECB reference rates format/);
  });
});
