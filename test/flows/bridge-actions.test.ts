import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { harness, type ApiResponse } from '../support/harness.js';
import { daytimeOutreach } from '../support/outreach.js';
import { startReceiver, until } from '../support/receiver.js';

/**
 * Bridge actions end to end (HTTP → bridge-actions queue → worker → a local
 * provider that verifies every call with the standardwebhooks package).
 */
describe('bridge actions: provider calls that happen once', function () {
  this.timeout(30_000);
  const credential = `act-${randomBytes(18).toString('hex')}`;
  const secret = newWebhookSecret();
  let answers: number[] = [];
  let provider: Awaited<ReturnType<typeof startReceiver>>;
  const responses: ApiResponse[] = [];
  before(async () => {
    process.env.AWP_SECRET_TEST_ACT_TOKEN = credential;
    provider = await startReceiver(
      () => [secret],
      (n) => {
        const status = answers[n - 1] ?? 200;
        return { status, headers: { 'content-type': 'application/json' } };
      },
    );
  });
  after(async () => {
    delete process.env.AWP_SECRET_TEST_ACT_TOKEN;
    await provider.stop();
  });

  async function setup(extra: Record<string, unknown> = {}) {
    const a = await harness.account();
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/credentials', {
          token: a.token,
          body: { name: 'act-token', kind: 'bearer', value: credential },
        })
      ).status,
      201,
    );
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await harness.call(method, path, { token: a.token, ...(body === undefined ? {} : { body }) });
      responses.push(res);
      return res;
    };
    const connectorId = `sms-${randomBytes(3).toString('hex')}`;
    const made = await call('POST', '/v1/bridge/connectors', {
      connectorId,
      kind: 'custom',
      caps: ['sms.send', 'messages.status'],
      endpoint: provider.url,
      credential: { type: 'bearer', tokenRef: 'cred:act-token' },
      signingSecret: secret,
      ...extra,
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.connector.signed, true);
    assert.ok(!made.text.includes(secret), 'the signing secret is never returned');
    return { a, call, connectorId };
  }
  const settled = (call: (m: string, p: string) => Promise<ApiResponse>, id: string, statuses: string[]) =>
    until(
      () => call('GET', `/v1/bridge/actions/${id}`),
      (r) => statuses.includes(r.body.action?.status),
    );

  it(
    'a hosted action arrives once, signed, with the ' + 'credential from the environment and the idempotency ' + 'key',
    async () => {
      answers = [];
      const before = provider.received.length;
      const { call, connectorId } = await setup();
      const made = await call('POST', '/v1/bridge/actions', {
        connectorId,
        capability: 'sms.send',
        input: { to: '+49305550155', text: 'hello', outreach: daytimeOutreach() },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.action.status, 'queued');
      const done = await settled(call, made.body.action.actionId, ['succeeded', 'failed']);
      assert.equal(done.body.action.status, 'succeeded', done.text);
      const got = provider.received.slice(before);
      assert.equal(got.length, 1, 'one call');
      assert.equal(got[0]!.headers.authorization, `Bearer ${credential}`);
      assert.equal(got[0]!.headers['idempotency-key'], made.body.action.idempotencyKey);
      assert.equal(got[0]!.headers['webhook-id'], made.body.action.actionId);
      assert.deepEqual(
        got[0]!.body.data.input,
        { to: '+49305550155', text: 'hello' },
        'the outreach object is not sent',
      );
      const { proof, request } = done.body.action;
      assert.equal(proof.responseStatus, 200);
      assert.match(proof.requestSha256, /^[0-9a-f]{64}$/);
      assert.equal(request.bodySha256, proof.requestSha256);
      assert.equal(request.credential.tokenRef, 'cred:act-token');
      assert.ok(!responses.some((r) => r.text.includes(credential)), 'no credential value in any response');
    },
  );

  it('a 503 is retried with the same key; a 4xx fails at once', async () => {
    const start = provider.received.length;
    answers = [...Array(start).fill(200), 503, 200];
    const { call, connectorId } = await setup();
    const made = await call('POST', '/v1/bridge/actions', {
      connectorId,
      capability: 'sms.send',
      input: { to: '+49305550155', text: 'again', outreach: daytimeOutreach() },
    });
    const done = await settled(call, made.body.action.actionId, ['succeeded', 'failed']);
    assert.equal(done.body.action.status, 'succeeded', done.text);
    assert.equal(done.body.action.attempts, 2);
    const got = provider.received.slice(start);
    assert.equal(got.length, 2);
    assert.equal(got[0]!.headers['idempotency-key'], got[1]!.headers['idempotency-key']);
    assert.deepEqual(
      done.body.action.history.map((m: any) => m.to),
      ['queued', 'running', 'retrying', 'running', 'succeeded'],
    );

    const n = provider.received.length;
    answers = [...Array(n).fill(200), 422];
    const refused = await call('POST', '/v1/bridge/actions', {
      connectorId,
      capability: 'sms.send',
      input: { to: '+49305550155', text: 'bad', outreach: daytimeOutreach() },
    });
    const failed = await settled(call, refused.body.action.actionId, ['succeeded', 'failed']);
    assert.deepEqual(
      [failed.body.action.status, failed.body.action.attempts, failed.body.action.error.status],
      ['failed', 1, 422],
    );
    answers = [];
    const rerun = await call('POST', `/v1/bridge/actions/${refused.body.action.actionId}/run`);
    assert.equal(rerun.body.action.status, 'queued');
    const ok = await settled(call, refused.body.action.actionId, ['succeeded']);
    assert.equal(ok.body.action.idempotencyKey, refused.body.action.idempotencyKey);
  });

  it("a client-hosted action waits for the client's update", async () => {
    const { call } = await setup({ connectorId: 'client-sms', endpoint: 'bridge://client/sms-relay' });
    const made = await call('POST', '/v1/bridge/actions', {
      connectorId: 'client-sms',
      capability: 'sms.send',
      input: { to: '+49305550155', text: 'via the client', outreach: daytimeOutreach() },
    });
    const waiting = await settled(call, made.body.action.actionId, ['awaitingClient']);
    assert.ok(waiting.body.action.clientDeadline);
    const updated = await call('POST', `/v1/bridge/actions/${made.body.action.actionId}/update`, {
      status: 'succeeded',
      response: { sid: 'SM1' },
      providerRef: 'SM1',
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual([updated.body.action.status, updated.body.action.providerRef], ['succeeded', 'SM1']);
    const again = await call('POST', `/v1/bridge/actions/${made.body.action.actionId}/update`, { status: 'succeeded' });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body.details.allowed, ['delivered', 'failed']);
  });

  it('an action under a revoked session is refused with 409; one outside policy with 422', async () => {
    const { call, connectorId } = await setup();
    const session = await call('POST', '/v1/bridge/connection-sessions', { connectorId, actions: ['sms.send'] });
    const ok = await call('POST', '/v1/bridge/actions', {
      connectorId,
      capability: 'sms.send',
      sessionId: session.body.session.sessionId,
      input: { to: '+49305550155', text: 'in session', outreach: daytimeOutreach() },
    });
    assert.equal(ok.status, 201, ok.text);
    await call('POST', `/v1/bridge/connection-sessions/${session.body.session.sessionId}/revoke`, {});
    const revoked = await call('POST', '/v1/bridge/actions', {
      connectorId,
      capability: 'sms.send',
      sessionId: session.body.session.sessionId,
      input: { to: '+49305550155', text: 'in session', outreach: daytimeOutreach() },
    });
    assert.equal(revoked.status, 409, revoked.text);
    assert.equal(revoked.body.details.status, 'revoked');
    const notCap = await call('POST', '/v1/bridge/actions', { connectorId, capability: 'voice.call' });
    assert.equal(notCap.status, 422);
    assert.deepEqual(
      notCap.body.details.errors.map((e: any) => e.check),
      ['capability', 'scope'],
    );
  });

  it('a proxy mission with a connectorId sends its message as a bridge action, and shows it', async () => {
    answers = [];
    const start = provider.received.length;
    const { call, connectorId } = await setup();
    const task = await call('POST', '/v1/tasks', { domain: 'proxy', inData: {} });
    const made = await call('POST', '/v1/proxy/missions', {
      taskId: task.body.task.taskId,
      kind: 'message',
      reason: 'localServiceAvailability',
      task: 'Ask whether Monday works',
      channelMsg: {
        channel: 'sms',
        to: '+49305550123',
        text: 'Does Monday work?',
        connectorId,
        outreach: { ...daytimeOutreach(), lawfulBasis: 'legitimateInterest' },
      },
    });
    assert.equal(made.status, 201, made.text);
    const sent = made.body.mission.dispatch.channelMsg;
    assert.deepEqual([sent.status, sent.connectorId], ['queued', connectorId]);
    await settled(call, sent.actionId, ['succeeded']);
    const got = provider.received.slice(start);
    assert.equal(got.length, 1);
    assert.equal(got[0]!.body.data.capability, 'sms.send');
    assert.deepEqual(
      [got[0]!.body.data.input.proxyId, got[0]!.body.data.input.callbackRef],
      [made.body.proxyId, made.body.mission.callbackRef],
    );
    const mission = await call('GET', `/v1/proxy/missions/${made.body.proxyId}`);
    assert.equal(mission.body.mission.dispatch.channelMsg.status, 'succeeded');
    const refused = await call('POST', '/v1/proxy/missions', {
      taskId: task.body.task.taskId,
      kind: 'call',
      reason: 'localServiceAvailability',
      task: 'Call them',
      voiceCall: { phone: '+49305550123', connectorId },
    });
    assert.equal(refused.status, 422, 'the connector has no voice.call: no mission is written');
  });

  it('run while a hosted action is running answers 202 with it as it is, and calls the provider once', async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let calls = 0;
    const slow = http.createServer((req, res) => {
      calls++;
      req.resume();
      void held.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id":"SM-slow"}');
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const endpoint = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`;
      const { call, connectorId } = await setup({ endpoint });
      const made = await call('POST', '/v1/bridge/actions', {
        connectorId,
        capability: 'sms.send',
        input: { to: '+49305550155', text: 'slow', outreach: daytimeOutreach() },
      });
      const id = made.body.action.actionId;
      const running = await settled(call, id, ['running']);
      const run = await call('POST', `/v1/bridge/actions/${id}/run`);
      assert.equal(run.status, 202, run.text);
      assert.equal(run.body.action.status, 'running');
      assert.deepEqual(run.body.action.history, running.body.action.history, 'run changed nothing');
      release();
      await settled(call, id, ['succeeded']);
      assert.equal(calls, 1, 'the provider was called once');
      assert.equal((await call('POST', `/v1/bridge/actions/${id}/run`)).status, 409, 'a succeeded action has ended');
    } finally {
      release();
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
