import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { pollUntilRest, seedCatalog } from '../support/runs.js';

describe('resume data and sandbox sessions cannot reach beyond the caller', () => {
  let token: string;
  before(async () => {
    let accountId: string;
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });

  it('resume data cannot override the chosen itemId, the action or the choices the waitpoint offered', async () => {
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: {
        request: 'shortlist espresso machines under $250 so I can choose one',
        conversationId: `conv-h-${Date.now()}`,
      },
    });
    const offered = first.body.results.hunt.choices[0];
    const invented = {
      itemId: 'lst_invented',
      title: 'Free espresso machine',
      price: 1,
      currency: 'USD',
      net: { amount: '1.00', currency: 'USD' },
      vendor: 'Nobody',
    };
    const res = await harness.call('POST', `/v1/runs/${first.body.runId}/resume`, {
      token,
      body: { itemId: offered.itemId, data: { itemId: 'lst_invented', action: 'contact', choices: [invented] } },
    });
    assert.equal(res.status, 202, res.text);
    const run = await pollUntilRest(token, first.body.runId);
    assert.equal(run.status, 'awaitingApproval', 'the buy continued into pay, which waits for a mandate');
    assert.equal(run.result.results.hunt.selected.itemId, offered.itemId);
    assert.equal(run.result.results.hunt.action, 'buy');
    assert.ok(!JSON.stringify(run.result).includes('Free espresso machine'), 'the invented listing appears nowhere');
  });

  it('each sandbox caller has its own session: another caller cannot resume or continue its conversation', async () => {
    const conversationId = `sandbox_shared_${Date.now()}`;
    const a = await harness.call('POST', '/v1/orchestrator/run', {
      body: { request: 'shortlist espresso machines under $250 so I can choose one', conversationId },
    });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.body.status, 'NEEDS_INPUT');
    const session = a.headers.get('x-sandbox-session');
    assert.ok(session, 'the first answer carries a signed session');
    const itemId = a.body.results.hunt.choices[0].itemId;

    const b = await harness.call('POST', '/v1/orchestrator/run', {
      body: { request: 'buy it', conversationId, itemId, action: 'buy' },
    });
    assert.equal(b.status, 409, 'a caller without the session has no run waiting in that conversation');
    assert.notEqual(b.headers.get('x-sandbox-session'), session);

    const forged = `${session!.split('.')[0]!.slice(0, -2)}AA.${session!.split('.').slice(1).join('.')}`;
    const c = await harness.call('POST', '/v1/orchestrator/run', {
      headers: { 'x-sandbox-session': forged },
      body: { request: 'buy it', conversationId, itemId, action: 'buy' },
    });
    assert.equal(c.status, 401, 'a session id the service did not sign is refused');

    const own = await harness.call('POST', '/v1/orchestrator/run', {
      headers: { 'x-sandbox-session': session! },
      body: { request: 'buy it', conversationId, itemId, action: 'buy' },
    });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.runId, a.body.runId);
    assert.equal(own.body.status, 'awaitingApproval', 'the buy continued into pay; a sandbox account has no mandate');
    assert.equal(own.body.results.pay.reason, 'mandateMissing');
  });

  it('a canceled run cancels its task', async () => {
    const task = await harness.call('POST', '/v1/tasks', { token, body: { domain: 'hunt', inData: {} } });
    assert.equal(task.status, 201, task.text);
    const taskId = task.body.task.taskId;
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: {
        request: 'shortlist espresso machines under $250 so I can choose one',
        conversationId: `conv-t-${Date.now()}`,
        taskId,
      },
    });
    assert.equal(first.body.status, 'NEEDS_INPUT');
    assert.equal((await harness.call('POST', `/v1/runs/${first.body.runId}/cancel`, { token })).status, 200);
    const after = await harness.call('GET', `/v1/tasks/${taskId}`, { token });
    assert.equal(after.body.task.status, 'canceled');
  });
});
