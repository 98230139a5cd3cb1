import assert from 'node:assert/strict';
import { BRIDGE_ACTIONS_QUEUE } from '../../shared/queues.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

const input = { to: 'kim@example.com', text: 'hi', outreach: { lawfulBasis: 'contract' } };

/** The action routes' contract: success, 400, 401, 404 and another account's action (404). */
describe('bridge actions API', function () {
  this.timeout(20_000);
  let owner: { token: string };
  let other: { token: string };
  let actionId: string;
  before(async () => {
    owner = await harness.account();
    other = await harness.account();
    // A client-hosted connector: the action waits for the client, no provider needed here.
    const made = await harness.call('POST', '/v1/bridge/connectors', {
      token: owner.token,
      body: { connectorId: 'relay', kind: 'custom', caps: ['chat.post'], endpoint: 'bridge://client/relay' },
    });
    assert.equal(made.status, 201, made.text);
    const action = await harness.call('POST', '/v1/bridge/actions', {
      token: owner.token,
      body: { connectorId: 'relay', capability: 'chat.post', input },
    });
    assert.equal(action.status, 201, action.text);
    actionId = action.body.action.actionId;
  });

  it('creates, lists with filters and fetches', async () => {
    const list = await harness.call('GET', '/v1/bridge/actions?connectorId=relay&limit=10', { token: owner.token });
    assert.deepEqual(
      list.body.actions.map((a: any) => a.actionId),
      [actionId],
    );
    assert.equal(
      (await harness.call('GET', '/v1/bridge/actions?status=delivered', { token: owner.token })).body.actions.length,
      0,
    );
    const one = await harness.call('GET', `/v1/bridge/actions/${actionId}`, { token: owner.token });
    assert.equal(one.body.action.hosting, 'client');
  });

  it('400 on a bad body, query or update', async () => {
    assert.equal(
      (await harness.call('POST', '/v1/bridge/actions', { token: owner.token, body: { connectorId: 'relay' } })).status,
      400,
    );
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/actions', {
          token: owner.token,
          body: { connectorId: 'relay', capability: 'Not A Cap' },
        })
      ).status,
      400,
    );
    assert.equal((await harness.call('GET', '/v1/bridge/actions?status=nope', { token: owner.token })).status, 400);
    assert.equal(
      (
        await harness.call('POST', `/v1/bridge/actions/${actionId}/update`, {
          token: owner.token,
          body: { status: 'running' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await harness.call('POST', `/v1/bridge/actions/${actionId}/update`, {
          token: owner.token,
          body: { status: 'failed' },
        })
      ).status,
      400,
      'a failure carries its error',
    );
  });

  it('401 without a token', async () => {
    assert.equal((await harness.call('GET', '/v1/bridge/actions')).status, 401);
    assert.equal(
      (await harness.call('POST', '/v1/bridge/actions', { body: { connectorId: 'relay', capability: 'chat.post' } }))
        .status,
      401,
    );
    assert.equal((await harness.call('GET', `/v1/bridge/actions/${actionId}`)).status, 401);
  });

  it("404 for unknown actions, connectors and threads; another account's action is 404", async () => {
    assert.equal((await harness.call('GET', '/v1/bridge/actions/bac_missing', { token: owner.token })).status, 404);
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/actions', {
          token: owner.token,
          body: { connectorId: 'nope', capability: 'chat.post' },
        })
      ).status,
      404,
    );
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/actions', {
          token: owner.token,
          body: { connectorId: 'relay', capability: 'chat.post', threadId: 'thr_missing' },
        })
      ).status,
      404,
    );
    assert.equal((await harness.call('GET', `/v1/bridge/actions/${actionId}`, { token: other.token })).status, 404);
    assert.equal(
      (
        await harness.call('POST', `/v1/bridge/actions/${actionId}/update`, {
          token: other.token,
          body: { status: 'succeeded' },
        })
      ).status,
      404,
    );
    assert.equal(
      (await harness.call('POST', `/v1/bridge/actions/${actionId}/run`, { token: other.token })).status,
      404,
    );
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/actions', {
          token: other.token,
          body: { connectorId: 'relay', capability: 'chat.post' },
        })
      ).status,
      404,
    );
    assert.deepEqual((await harness.call('GET', '/v1/bridge/actions', { token: other.token })).body.actions, []);
  });

  it('run is idempotent: 202 with the action while queued or awaiting its client; 409 once it ended', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      harness.call(method, path, { token: owner.token, ...(body === undefined ? {} : { body }) });
    // What the spec describes a client doing: create, then run at once.
    const made = await call('POST', '/v1/bridge/actions', { connectorId: 'relay', capability: 'chat.post', input });
    assert.equal(made.status, 201, made.text);
    const id = made.body.action.actionId;
    const first = await call('POST', `/v1/bridge/actions/${id}/run`);
    assert.equal(first.status, 202, first.text);
    assert.ok(['queued', 'awaitingClient'].includes(first.body.action.status), first.body.action.status);
    const waiting = await until(
      () => call('GET', `/v1/bridge/actions/${id}`),
      (r) => r.body.action.status === 'awaitingClient',
    );
    const again = await call('POST', `/v1/bridge/actions/${id}/run`);
    assert.equal(again.status, 202, again.text);
    assert.equal(again.body.action.status, 'awaitingClient');
    assert.deepEqual(again.body.action.history, waiting.body.action.history, 'run changed nothing');
    assert.equal(again.body.action.attempts, 1, 'and dispatched nothing again');
    // A lost timeout job (Redis lost it) is put back by run, so the action cannot wait forever.
    const queue = harness.deps.queues.queue(BRIDGE_ACTIONS_QUEUE);
    await (await queue.getJob(`${id}.timeout.1`))!.remove();
    assert.equal((await call('POST', `/v1/bridge/actions/${id}/run`)).status, 202);
    assert.ok(await queue.getJob(`${id}.timeout.1`), 'the timeout is armed again');

    assert.equal((await call('POST', `/v1/bridge/actions/${id}/update`, { status: 'succeeded' })).status, 200);
    const ended = await call('POST', `/v1/bridge/actions/${id}/run`);
    assert.equal(ended.status, 409, ended.text);
    assert.match(ended.body.message, /has ended \(succeeded\) and cannot run again/);
    assert.equal(ended.body.details.status, 'succeeded');
  });
});
