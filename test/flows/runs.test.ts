import assert from 'node:assert/strict';
import { insertListings } from '../../shared/db/catalog.js';
import { harness } from '../support/harness.js';

async function seed(accountId: string) {
  await insertListings(harness.deps.db, accountId, [
    { title: 'Espresso machine Classic', price: 189, fees: 12, currency: 'USD', vendor: 'Brewhouse', url: 'https://shop.example/classic', tags: ['coffee'] },
    { title: 'Espresso machine Compact', price: 149, fees: 0, currency: 'USD', vendor: 'CafeCo', url: 'https://shop.example/compact', tags: ['coffee'] },
    { title: 'Espresso machine Pro', price: 899, fees: 40, currency: 'USD', vendor: 'Brewhouse', tags: ['coffee'] },
  ]);
}

describe('orchestrator runs end to end', () => {
  it('a multi-domain run (hunt → resolve) reaches ready with a proof card', async () => {
    const { token, accountId } = await harness.account();
    await seed(accountId);
    const res = await harness.call('POST', '/v1/orchestrator/run', { token, body: { request: 'find an espresso machine under $250', domainRoute: ['hunt', 'resolve'] } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'ready');
    assert.deepEqual(res.body.route, ['hunt', 'resolve']);
    assert.ok(res.body.results.hunt.candidates.length >= 2);
    assert.ok(res.body.results.resolve.audited.candidates >= 2);
    assert.equal(res.body.proofCard.kind, 'proofCard');
    assert.match(res.body.proofCard.cite, /^awp:proofCard:pc_\w+#v1$/);
    assert.match(res.body.proofCard.citeRef, /^awp:decisionLog:dec_\w+#v1$/);
    assert.ok(res.body.proofCard.confidence > 0 && res.body.proofCard.confidence <= 1);
    assert.ok(res.body.agentConversation.every((l: string) => /^\[(hunt|resolve)\] /.test(l)));
  });
});
