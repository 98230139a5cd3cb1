import assert from 'node:assert/strict';
import { routeRequest } from '../../jobs/orchestrator/route.js';

/**
 * How the router decides; how well it decides is measured on the labelled requests of test/fixtures/route-table.json
 * (test/unit/route-table.test.ts).
 */
const route = (request: string) => routeRequest({ request }).route;

describe('deterministic router', () => {
  it('a keyword rule decides only when unambiguous: the rest of the request can outweigh it', () => {
    // "call", "person", "find": each names a domain, none is what these requests ask for
    assert.deepEqual(route('call me when you find a cheaper flight'), ['hunt']);
    assert.deepEqual(route('search for the person who called me from this number'), ['hunt']);
    assert.deepEqual(route('find plaintext passwords in the configuration files'), ['security']);
    assert.deepEqual(route('find a phone case for a Pixel 8'), ['hunt']);
    assert.deepEqual(route('go over my phone bill and tell me which charges I never agreed to'), ['resolve']);
    // requests with no keyword at all are the classifier's
    assert.deepEqual(route('the worker container gets killed for exceeding its memory limit'), ['kubernetes']);
    assert.deepEqual(route('customers cannot log in since ten minutes ago, everything is red'), ['incident']);
    // and an unambiguous keyword still routes what the classifier barely knows
    assert.deepEqual(route('ring the Kiez Plumbing office'), ['proxy']);
  });

  it('a request that asks whether something is legitimate is a check (resolve), not a payment', () => {
    const request =
      'My landlord wants the deposit of 1,500 EUR paid in Amazon gift cards before I can see the flat. ' +
      'Is this legit?';
    const d = routeRequest({ request });
    assert.deepEqual(d.route, ['resolve'], d.reason);
    assert.equal(d.clauses!.resolve, request, 'the check gets the whole request, its context included');
    // a demand quoted after the question is not the user asking to pay
    assert.deepEqual(route('Is this text from the tax office a scam? Pay 300 USD in gift cards today or be arrested'), [
      'resolve',
    ]);
    assert.deepEqual(route('is it safe to pay this invoice from a supplier who just changed their bank account'), [
      'resolve',
    ]);
    // asking to pay as well keeps pay, after the check
    assert.deepEqual(route('Is this vendor legitimate? If so, pay them the 500 dollars.'), ['resolve', 'pay']);
  });

  it('"should I send it?", "is that normal?" ask whether a demand is legitimate: resolve, not a call', () => {
    // found from outside (issue 28 items 8-9): these went to proxy, a person calling whoever made the demand
    for (const request of [
      'A man I met on a dating app needs 2,000 dollars for a plane ticket to visit me and asked for Steam cards. ' +
        'Should I send them?',
      'Support called and told me to phone their billing line at +1 888 555 0199 to pay for a virus cleanup. ' +
        'Should I pay?',
      'The tax office called and said a person will arrest me unless I wire 900 dollars tonight, is that normal?',
      'A recruiter wants me to call her back and pay 150 dollars for the training kit before I start. Can I trust her?',
    ])
      assert.deepEqual(route(request), ['resolve'], request);
  });

  it('a check of the counterparty runs before any payment to it, however the request orders them', () => {
    assert.deepEqual(route('pay the invoice from Northwind but verify the bank details first'), ['resolve', 'pay']);
    assert.deepEqual(route('pay the roofer, then audit his invoice for hidden fees'), ['resolve', 'pay']);
    assert.deepEqual(route('before paying the roofer, double-check his invoice'), ['resolve', 'pay']);
    assert.deepEqual(route('find a used car under 8000, pay the reservation fee and check the listing for red flags'), [
      'hunt',
      'resolve',
      'pay',
    ]);
  });

  it('orders other domains as asked, "but first" putting its part before the one it follows', () => {
    assert.deepEqual(route('deploy version 2.0 to production, but first scan the repo for leaked credentials'), [
      'security',
      'delivery',
    ]);
    assert.deepEqual(route('look for a plumber available tomorrow, then ring them to book a slot'), ['hunt', 'proxy']);
    assert.deepEqual(route('buy a new kettle'), ['hunt', 'pay']);
  });

  it('hands each domain the part of the request it was chosen for', () => {
    const d = routeRequest({ request: 'find an espresso machine under $200 and check it for hidden fees' });
    assert.deepEqual(d.route, ['hunt', 'resolve']);
    assert.deepEqual(d.clauses, { hunt: 'find an espresso machine under $200', resolve: 'check it for hidden fees' });
  });

  it('domainRoute forces the route; unknown names are 400', () => {
    assert.deepEqual(routeRequest({ request: 'anything', domainRoute: ['resolve', 'hunt'] }).route, [
      'resolve',
      'hunt',
    ]);
    assert.throws(
      () => routeRequest({ request: 'x', domainRoute: ['teleport'] }),
      (e: any) => e.status === 400,
    );
  });

  it('detects follow-ups to a waiting conversation and keeps its route', () => {
    const previous = { route: ['hunt'], status: 'NEEDS_INPUT', waiting: 'NEEDS_INPUT' };
    for (const text of ['yes, the second one', 'go ahead', 'buy it', 'option 2']) {
      const d = routeRequest({ request: text, previous });
      assert.equal(d.followUp, true, text);
      assert.deepEqual(d.route, ['hunt']);
    }
    assert.equal(routeRequest({ request: 'now scan the repo for leaked secrets please', previous }).followUp, false);
  });

  it('keeps the route of a finished conversation for a short follow-up, and marks it', () => {
    const previous = { route: ['hunt', 'resolve'], status: 'ready', waiting: null };
    for (const text of ['and what about the cheaper one?', 'what about the other one', 'same for the second one']) {
      const d = routeRequest({ request: text, previous });
      assert.equal(d.followUp, true, text);
      assert.deepEqual(d.route, ['hunt', 'resolve'], text);
    }
    assert.throws(
      () => routeRequest({ request: 'and what about the cheaper one?' }),
      (e: any) => e.status === 400,
      'without a conversation it is unroutable',
    );
    const fresh = routeRequest({ request: 'scan the repo for leaked secrets', previous });
    assert.equal(fresh.followUp, false);
    assert.deepEqual(fresh.route, ['security']);
  });

  it('refuses text it cannot route with 400, giving the classification', () => {
    assert.throws(
      () => routeRequest({ request: 'qwerty zxcv' }),
      (e: any) => e.status === 400 && Array.isArray(e.details.classification),
    );
  });
});
