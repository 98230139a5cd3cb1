import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

/**
 * A client that loses the reply to an answer and sends it again is told 409
 * (the spec's second resume), naming the waitpoint the item was answered at;
 * never 400, as if the request were malformed.
 */
describe('a repeated resume is 409 naming the waitpoint already resolved', () => {
  let token: string;
  before(async () => {
    let accountId: string;
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });
  const run = (body: object) => harness.call('POST', '/v1/orchestrator/run', { token, body });
  const shortlist = async (conversationId: string) => {
    const first = await run({
      request: 'shortlist espresso machines under $250 so I can choose one',
      conversationId,
      consentToCall: true,
    });
    assert.equal(first.body.status, 'NEEDS_INPUT', first.text);
    return { runId: first.body.runId as string, itemId: first.body.results.hunt.choices[0].itemId as string };
  };

  it('a contact sent twice, as a follow-up turn or on /resume, names the choice it resolved', async () => {
    const conversationId = `conv-repeat-contact-${Date.now()}`;
    const { runId, itemId } = await shortlist(conversationId);
    const turn = { request: 'contact that one', conversationId, itemId, action: 'contact' };
    const first = await run(turn);
    assert.equal(first.body.status, 'awaitingProxy', first.text);

    const again = await run(turn);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error, 'conflict');
    assert.equal(again.body.details.resolution.action, 'contact');
    assert.equal(again.body.details.kind, 'NEEDS_INPUT');
    assert.ok(again.body.details.openWaitpointId, 'it names the waitpoint open now');
    assert.match(again.body.message, /was answered already/);

    for (const body of [{ itemId, action: 'contact' }, { itemId }]) {
      const resume = await harness.call('POST', `/v1/runs/${runId}/resume`, { token, body });
      assert.equal(resume.status, 409, resume.text);
      assert.equal(resume.body.details.waitpointId, again.body.details.waitpointId);
    }
    const detail = (await harness.call('GET', `/v1/runs/${runId}`, { token })).body.run;
    assert.equal(detail.status, 'awaitingProxy', 'the repeats changed nothing');
  });

  it('a buy sent twice is 409 while the payment it led to waits; that approval is still answered', async () => {
    const conversationId = `conv-repeat-buy-${Date.now()}`;
    const { runId, itemId } = await shortlist(conversationId);
    const first = await run({ request: 'buy it', conversationId, itemId, action: 'buy' });
    assert.equal(first.body.status, 'awaitingApproval', first.text);

    const again = await harness.call('POST', `/v1/runs/${runId}/resume`, { token, body: { itemId, action: 'buy' } });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.details.resolution.action, 'buy');

    const refused = await harness.call('POST', `/v1/runs/${runId}/resume`, {
      token,
      body: { approved: false, action: 'decline' },
    });
    assert.equal(refused.status, 202, 'an answer to the payment itself is not a repeat');
  });

  it("another account's repeat of the same item is 404, not 409", async () => {
    const conversationId = `conv-repeat-foreign-${Date.now()}`;
    const { runId, itemId } = await shortlist(conversationId);
    assert.equal((await run({ request: 'contact it', conversationId, itemId, action: 'contact' })).status, 200);
    const other = await harness.account();
    const foreign = await harness.call('POST', `/v1/runs/${runId}/resume`, {
      token: other.token,
      body: { itemId, action: 'contact' },
    });
    assert.equal(foreign.status, 404, foreign.text);
  });
});

/**
 * A second resume of a resolved choice is 409 however it differs from the first: another of the items it offered,
 * or the same item with an action the waitpoint open now does not take (found from outside, issue 28 item 1).
 */
describe('a second answer to a resolved choice is 409, not 400', () => {
  let token: string;
  before(async () => {
    let accountId: string;
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });
  const run = (body: object) => harness.call('POST', '/v1/orchestrator/run', { token, body });

  for (const first of ['contact', 'buy'] as const) {
    it(`after ${first}: the other item offered, or the same item with another action, names the choice`, async () => {
      const conversationId = `conv-second-${first}-${Date.now()}`;
      const listed = await run({
        request: 'shortlist espresso machines under $250 so I can choose one',
        conversationId,
      });
      assert.equal(listed.body.status, 'NEEDS_INPUT', listed.text);
      const runId = listed.body.runId as string;
      const [chosen, other] = (listed.body.results.hunt.choices as Array<{ itemId: string }>).map((c) => c.itemId);
      const answered = await run({ request: 'that one', conversationId, itemId: chosen, action: first });
      assert.equal(answered.status, 200, answered.text);
      const status = answered.body.status as string;

      const second = first === 'contact' ? 'buy' : 'contact';
      const tries = [
        { itemId: other, action: first },
        { itemId: other, action: second },
        { itemId: chosen, action: second },
      ];
      for (const body of tries) {
        const resume = await harness.call('POST', `/v1/runs/${runId}/resume`, { token, body });
        assert.equal(resume.status, 409, `${JSON.stringify(body)}: ${resume.text}`);
        assert.equal(resume.body.details.kind, 'NEEDS_INPUT');
        assert.deepEqual(resume.body.details.resolution, { itemId: chosen, action: first });
        const turn = await run({ request: 'this one then', conversationId, ...body });
        assert.equal(turn.status, 409, `turn ${JSON.stringify(body)}: ${turn.text}`);
      }
      const detail = (await harness.call('GET', `/v1/runs/${runId}`, { token })).body.run;
      assert.equal(detail.status, status, 'the repeats changed nothing');
    });
  }
});
