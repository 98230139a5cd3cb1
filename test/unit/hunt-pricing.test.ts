import assert from 'node:assert/strict';
import { outcomeOf, termShare } from '../../jobs/hunt/logic.js';
import { availabilityOf, parseAmount } from '../../jobs/hunt/offers.js';
import { feeMentions } from '../../jobs/hunt/page-text.js';
import type { Candidate } from '../../shared/schemas/hunt.js';

describe('hunt pricing: amounts, availability, fees in words, winners', () => {
  it('reads money amounts as shops write them, and refuses ambiguous ones', () => {
    const cases: Array<[unknown, number | null]> = [
      [199.99, 199.99],
      ['199.99', 199.99],
      ['1,299.00', 1299],
      ['1.299,00', 1299],
      ['19,99', 19.99],
      ['$ 45', 45],
      ['USD 12.50', 12.5],
      ['1,2,3', null],
      ['free', null],
      [-5, null],
      [['30.00', '40.00'], 30],
      [{ '@value': '7.25' }, 7.25],
    ];
    for (const [raw, want] of cases) assert.equal(parseAmount(raw), want, JSON.stringify(raw));
  });

  it('maps schema.org availability in its written forms; anything else is unknown', () => {
    assert.equal(availabilityOf('https://schema.org/InStock'), 'inStock');
    assert.equal(availabilityOf('schema:OutOfStock'), 'outOfStock');
    assert.equal(availabilityOf('in stock'), 'inStock');
    assert.equal(availabilityOf({ '@id': 'http://schema.org/PreOrder' }), 'preOrder');
    assert.equal(availabilityOf('available soon'), 'unknown');
    assert.equal(availabilityOf(undefined), 'unknown');
  });

  it('finds fees a page adds in words, priced only by an amount that belongs to the fee', () => {
    const read = (text: string) =>
      feeMentions(text, (s) => parseAmount(s)).map((m) => [
        m.kind,
        m.amount && `${m.amount.value} ${m.amount.currency}`,
      ]);
    assert.deepEqual(read('$119.00 plus handling fee'), [['fee', null]], "the product price is not the fee's");
    assert.deepEqual(read('Plus a $4.99 handling fee per order.'), [['fee', '4.99 USD']]);
    assert.deepEqual(read('A service charge of €3,50 applies.'), [['fee', '3.5 EUR']]);
    assert.deepEqual(
      read('Prices excl. shipping costs'),
      [['shipping', null]],
      'an abbreviation does not end the sentence',
    );
    assert.deepEqual(read('Free shipping. No handling fee. Gift wrap is optional, plus $5.'), []);
    assert.deepEqual(
      read('Shipping & returns\nShipping: $9.99 flat.'),
      [],
      'a shipping price stated as such adds nothing to find',
    );
  });

  it('ranks by the share of search terms a title holds; plurals count', () => {
    assert.equal(termShare('Cordless Drills (2-pack)', 'cordless drill'), 1);
    assert.equal(termShare('Compact Drill Driver', 'cordless drill'), 0.5);
    assert.equal(termShare('Garden hose', 'cordless drill'), 0);
    assert.equal(termShare('Trail running shoes', 'shoe'), 1);
    assert.equal(termShare('Storage box', 'boxes'), 1);
  });

  it(
    'a browse request asks for a choice only when eligible candidates tie for the best rank (or the lowest ' +
      'price, when it asked for the cheapest)',
    () => {
      const c = (id: string, rank: number, net: number, eligible = true) =>
        ({
          candidateId: id,
          rank,
          netInBudgetCurrency: {
            amount: net.toFixed(2),
            currency: 'USD',
            rate: null,
            rateDate: null,
            rateSource: null,
          },
          eligible,
        }) as Candidate;
      assert.deepEqual(outcomeOf('browse', [c('a', 1, 10), c('b', 0.5, 5)]), { kind: 'winner', winner: c('a', 1, 10) });
      assert.equal(outcomeOf('browse', [c('a', 1, 10), c('b', 1, 12)]).kind, 'choice');
      assert.equal(outcomeOf('browse', [c('a', 1, 10), c('b', 1, 12)], true).kind, 'winner');
      assert.equal(
        outcomeOf('buy', [c('a', 1, 10), c('b', 0.5, 12)]).kind,
        'choice',
        'to act, every eligible one competes',
      );
      assert.equal(outcomeOf('buy', [c('a', 1, 10), c('b', 1, 12, false)]).kind, 'winner');
      assert.equal(outcomeOf('browse', [c('a', 1, 10, false)]).kind, 'none');
    },
  );
});
