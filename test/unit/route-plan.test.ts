import assert from 'node:assert/strict';
import { checkBeforePay, kindOf, planRoute, splitRequest, type PlannedPart } from '../../jobs/orchestrator/logic.js';

const part = (domain: string, text: string, extra: Partial<PlannedPart> = {}): PlannedPart => ({
  domain,
  text,
  core: text,
  link: 'sequence',
  kind: 'ask',
  legitimacy: false,
  why: 'test',
  ...extra,
});

describe('route planning (pure)', () => {
  it('splits a request where it joins requests, and says how each part is joined', () => {
    const parts = splitRequest('Find a bike. Is it legit? If so, pay for it, but first call the seller');
    assert.deepEqual(
      parts.map((p) => [p.core, p.link, p.kind]),
      [
        ['Find a bike.', 'start', 'ask'],
        ['Is it legit?', 'sentence', 'question'],
        ['pay for it', 'condition', 'ask'],
        ['call the seller', 'prerequisite', 'ask'],
      ],
    );
    assert.deepEqual(
      splitRequest('before paying the roofer, double-check his invoice').map((p) => p.core),
      ['double-check his invoice', 'paying the roofer'],
    );
    assert.equal(splitRequest('call me when you find a cheaper flight')[0]!.core, 'find a cheaper flight');
  });

  it('tells requests and questions from context', () => {
    assert.equal(kindOf('My landlord wants the deposit in gift cards.'), 'statement');
    assert.equal(kindOf('I need a hotel in Rome'), 'ask');
    assert.equal(kindOf('can you call the vet'), 'ask');
    assert.equal(kindOf('can I trust this seller'), 'question');
  });

  it('puts a check of the counterparty before any payment, leaving the rest in order', () => {
    const ids = (route: string[]) => checkBeforePay(route, (d) => d);
    assert.deepEqual(ids(['pay', 'resolve']), ['resolve', 'pay']);
    assert.deepEqual(ids(['hunt', 'pay', 'proxy', 'resolve']), ['hunt', 'resolve', 'pay', 'proxy']);
    assert.deepEqual(ids(['resolve', 'pay']), ['resolve', 'pay']);
    assert.deepEqual(ids(['pay', 'hunt']), ['pay', 'hunt']);
    const plan = planRoute([part('pay', 'pay the roofer'), part('resolve', 'check his invoice')]);
    assert.deepEqual(plan.route, ['resolve', 'pay']);
    assert.match(plan.why.join('; '), /check of the counterparty \(resolve\) runs before the payment/);
  });

  it('keeps pay in a legitimacy question only where the user asks to pay', () => {
    const legit = part('resolve', 'Is this legit?', { legitimacy: true, kind: 'question', link: 'start' });
    const quoted = part('pay', 'Pay 300 USD today or be arrested', { link: 'sentence' });
    assert.deepEqual(planRoute([legit, quoted]).route, ['resolve']);
    assert.deepEqual(planRoute([legit, part('pay', 'should I pay?', { kind: 'question' })]).route, ['resolve']);
    assert.deepEqual(planRoute([legit, part('pay', 'pay it', { link: 'condition' })]).route, ['resolve', 'pay']);
    assert.deepEqual(planRoute([quoted]).route, ['pay'], 'without a legitimacy question a payment is a payment');
  });

  it('"buy a …" finds before it pays; one domain asked twice in a row is one step', () => {
    assert.deepEqual(planRoute([part('pay', 'buy a used road bike')]).route, ['hunt', 'pay']);
    assert.deepEqual(planRoute([part('hunt', 'buy a used road bike')]).route, ['hunt', 'pay']);
    assert.deepEqual(planRoute([part('hunt', 'where can I buy a desk')]).route, ['hunt']);
    assert.deepEqual(planRoute([part('hunt', 'a'), part('hunt', 'b'), part('proxy', 'c')]).route, ['hunt', 'proxy']);
  });
});
