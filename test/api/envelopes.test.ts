import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { cardV1 } from '../support/agents.js';

describe('A2A envelopes: contract, create, list, fetch, delivery status', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  let runId: string;
  let taskId: string;
  let msgId: string;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    for (const [who, id] of [
      [a, 'courier'],
      [a, 'client-agent'],
      [b, 'elsewhere'],
    ] as const) {
      const res = await harness.call('POST', '/v1/agents', {
        token: who.token,
        body: { agentId: id, card: cardV1(id, [{ id: 'deliver', tags: ['proxy'] }]) },
      });
      assert.equal(res.status, 201, res.text);
    }
    runId = (
      await harness.call('POST', '/v1/orchestrator/run', {
        token: a.token,
        body: { request: 'audit this claim', domainRoute: ['resolve'] },
      })
    ).body.runId;
    taskId = (await harness.call('POST', '/v1/tasks', { token: a.token, body: { domain: 'proxy', inData: {} } })).body
      .task.taskId;
  });

  it('GET /v1/a2a/contract publishes the statuses, their moves, the schemas and the task-state mapping', async () => {
    const res = await harness.call('GET', '/v1/a2a/contract', { token: a.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.statuses, [
      'queued',
      'sent',
      'delivered',
      'accepted',
      'rejected',
      'completed',
      'failed',
      'canceled',
    ]);
    assert.deepEqual(res.body.terminal, ['rejected', 'completed', 'failed', 'canceled']);
    assert.deepEqual(res.body.transitions.queued, ['sent', 'failed', 'canceled']);
    assert.deepEqual(res.body.schemas.update.properties.status.enum, res.body.statuses);
    assert.equal(res.body.transport.taskStates.NEEDS_INPUT, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(res.body.transport.taskStates.ready, 'TASK_STATE_COMPLETED');
    assert.equal((await harness.call('GET', '/v1/a2a/contract')).status, 401);
  });

  it('POST /v1/a2a/envelopes creates a queued envelope naming sender, recipient, run or task and payload', async () => {
    const res = await harness.call('POST', '/v1/a2a/envelopes', {
      token: a.token,
      body: {
        sender: 'client-agent',
        recipient: 'courier',
        runId,
        taskId,
        kind: 'delegation',
        payload: { pickup: 'dock 4' },
      },
    });
    assert.equal(res.status, 201, res.text);
    const env = res.body.envelope;
    assert.match(env.msgId, /^msg_/);
    assert.deepEqual(
      [env.sender, env.recipient, env.runId, env.taskId, env.kind, env.status, env.payload],
      ['client-agent', 'courier', runId, taskId, 'delegation', 'queued', { pickup: 'dock 4' }],
    );
    assert.deepEqual(env.allowedTransitions, ['sent', 'failed', 'canceled']);
    assert.deepEqual(
      env.history.map((h: any) => [h.from, h.to]),
      [[null, 'queued']],
    );
    msgId = env.msgId;
    const byTask = await harness.call('POST', '/v1/a2a/envelopes', {
      token: a.token,
      body: { recipient: 'courier', taskId, payload: {} },
    });
    assert.deepEqual([byTask.status, byTask.body.envelope.sender, byTask.body.envelope.kind], [201, 'awp', 'message']);
  });

  it(
    "POST /v1/a2a/envelopes: 400 without run or task or payload, 404 for an unknown or another account's " +
      'agent, run or task, 401 without a token',
    async () => {
      const post = (body: object, token = a.token) => harness.call('POST', '/v1/a2a/envelopes', { token, body });
      assert.equal((await post({ recipient: 'courier', payload: {} })).status, 400);
      assert.equal((await post({ recipient: 'courier', runId })).status, 400);
      assert.equal((await post({ recipient: 'courier', runId, payload: {}, kind: 'telegram' })).status, 400);
      assert.equal((await post({ recipient: 'nobody', runId, payload: {} })).status, 404);
      assert.equal((await post({ recipient: 'elsewhere', runId, payload: {} })).status, 404);
      assert.equal((await post({ recipient: 'courier', sender: 'elsewhere', runId, payload: {} })).status, 404);
      assert.equal((await post({ recipient: 'courier', runId: 'run_missing', payload: {} })).status, 404);
      assert.equal(
        (await post({ recipient: 'elsewhere', runId, payload: {} }, b.token)).status,
        404,
        "another account's run",
      );
      assert.equal(
        (await post({ recipient: 'elsewhere', taskId, payload: {} }, b.token)).status,
        404,
        "another account's task",
      );
      assert.equal(
        (await harness.call('POST', '/v1/a2a/envelopes', { body: { recipient: 'courier', runId, payload: {} } }))
          .status,
        401,
      );
    },
  );

  it(
    'delivery status moves along the table; an illegal move is 409 with the allowed ones; every move is in the ' +
      'history',
    async () => {
      const update = (body: object, token = a.token) =>
        harness.call('POST', `/v1/a2a/envelopes/${msgId}/update`, { token, body });
      const skip = await update({ status: 'completed' });
      assert.deepEqual(
        [skip.status, skip.body.error, skip.body.details.allowed],
        [409, 'conflict', ['sent', 'failed', 'canceled']],
      );
      for (const status of ['sent', 'delivered', 'accepted'])
        assert.equal((await update({ status, note: `now ${status}` })).status, 200, status);
      assert.equal((await update({ status: 'completed', error: 'nope' })).status, 400);
      const done = await update({ status: 'completed', result: { delivered: true } });
      assert.equal(done.status, 200);
      assert.deepEqual(done.body.envelope.result, { delivered: true });
      assert.deepEqual(done.body.envelope.allowedTransitions, []);
      assert.deepEqual(
        done.body.envelope.history.map((h: any) => h.to),
        ['queued', 'sent', 'delivered', 'accepted', 'completed'],
      );
      assert.equal(done.body.envelope.history[2].note, 'now delivered');
      assert.equal((await update({ status: 'canceled' })).status, 409, 'final statuses have no moves');
      assert.equal((await update({ status: 'teleported' })).status, 400);
      assert.equal((await update({ status: 'sent' }, b.token)).status, 404);
      assert.equal(
        (
          await harness.call('POST', '/v1/a2a/envelopes/msg_missing/update', {
            token: a.token,
            body: { status: 'sent' },
          })
        ).status,
        404,
      );
      assert.equal(
        (await harness.call('POST', `/v1/a2a/envelopes/${msgId}/update`, { body: { status: 'sent' } })).status,
        401,
      );
    },
  );

  it(
    'GET /v1/a2a/envelopes lists with filters; GET /v1/a2a/envelopes/{msgId} fetches; 404 unknown and ' +
      'cross-account; 401',
    async () => {
      const byRun = await harness.call('GET', `/v1/a2a/envelopes?runId=${runId}`, { token: a.token });
      assert.deepEqual(
        byRun.body.envelopes.map((e: any) => e.msgId),
        [msgId],
      );
      const done = await harness.call('GET', '/v1/a2a/envelopes?status=completed&recipient=courier', {
        token: a.token,
      });
      assert.deepEqual(
        done.body.envelopes.map((e: any) => e.msgId),
        [msgId],
      );
      assert.equal(
        (await harness.call('GET', `/v1/a2a/envelopes?taskId=${taskId}&limit=1`, { token: a.token })).body
          .nextCursor !== null,
        true,
      );
      assert.equal((await harness.call('GET', '/v1/a2a/envelopes?status=lost', { token: a.token })).status, 400);
      assert.deepEqual((await harness.call('GET', '/v1/a2a/envelopes', { token: b.token })).body.envelopes, []);
      assert.equal((await harness.call('GET', '/v1/a2a/envelopes')).status, 401);
      assert.equal(
        (await harness.call('GET', `/v1/a2a/envelopes/${msgId}`, { token: a.token })).body.envelope.status,
        'completed',
      );
      assert.equal((await harness.call('GET', `/v1/a2a/envelopes/${msgId}`, { token: b.token })).status, 404);
      assert.equal((await harness.call('GET', '/v1/a2a/envelopes/msg_missing', { token: a.token })).status, 404);
      assert.equal((await harness.call('GET', `/v1/a2a/envelopes/${msgId}`)).status, 401);
    },
  );
});
