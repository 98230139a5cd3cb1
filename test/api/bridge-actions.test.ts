import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

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
      body: { connectorId: 'relay', capability: 'chat.post', input: { text: 'hi' } },
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

  it('run is 409 while an action is under way', async () => {
    await until(
      () => harness.call('GET', `/v1/bridge/actions/${actionId}`, { token: owner.token }),
      (r) => r.body.action.status === 'awaitingClient',
    );
    const run = await harness.call('POST', `/v1/bridge/actions/${actionId}/run`, { token: owner.token });
    assert.equal(run.status, 409);
    assert.deepEqual(run.body.details.allowed, ['succeeded', 'delivered', 'failed', 'timedOut']);
  });
});
