import assert from 'node:assert/strict';
import { routeRequest } from '../../jobs/orchestrator/route.js';
import { routerVocabulary } from '../../jobs/orchestrator/route.js';

/** Requests that are not among the training examples, with the route a person would pick. */
const TABLE: Array<[string, string[]]> = [
  ['find vegan restaurants downtown', ['hunt']],
  ['looking for a cheap second hand sofa', ['hunt']],
  ['is this text message from the tax office a scam?', ['resolve']],
  ['audit the hotel bill for extra charges', ['resolve']],
  ['set up a stripe integration for invoices', ['bridge']],
  ['phone the clinic to move my appointment', ['proxy']],
  ['ring the dentist and ask whether they have an opening on friday', ['proxy']],
  ['call Kiez Plumbing at +49 30 5550123 and confirm they can fix the leak tomorrow', ['proxy']],
  ['my pods keep crashing after the upgrade', ['kubernetes']],
  ['the checkout page is down and alerts are firing', ['incident']],
  ['is this migration that adds a not null column safe', ['migration']],
  ['scan the repository for leaked aws keys', ['security']],
  ['will this migration lock the orders table', ['migration']],
  ['look for hardcoded tokens in our config files', ['security']],
  ['deploy version 3.1 of the api to staging', ['delivery']],
  ['plan a canary release for the search service', ['cicd']],
  ['what runtimes does this repo need for local development', ['environment']],
  ['find me a cheap espresso machine under $200 and pay for it', ['hunt', 'pay']],
  ['buy a used road bike', ['hunt', 'pay']],
  ['pay the electrician the 300 dollars we agreed', ['pay']],
  ["send the landlord this month's rent", ['pay']],
  ["verify this vendor's claims then call them", ['resolve', 'proxy']],
  ['search for a plumber, then phone them to book a visit', ['hunt', 'proxy']],
];

describe('deterministic router', () => {
  for (const [request, route] of TABLE) {
    it(`"${request}" → ${route.join(' → ')}`, () => {
      assert.ok(!Object.values(routerVocabulary().examples).flat().includes(request), 'the table tests unseen text');
      const d = routeRequest({ request });
      assert.deepEqual(d.route, route, d.reason);
      assert.equal(d.source, 'deterministic');
      assert.ok(d.reason.length > 0);
    });
  }

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
