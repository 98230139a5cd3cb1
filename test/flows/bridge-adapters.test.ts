import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { sweepActions } from '../../jobs/bridge/action-jobs.js';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { BRIDGE_ACTIONS_QUEUE } from '../../shared/queues.js';
import { providerConnector } from '../support/bridge.js';
import { harness, type ApiResponse } from '../support/harness.js';
import { daytimeOutreach } from '../support/outreach.js';
import { until } from '../support/receiver.js';
import { startTestProvider, type ProviderHit } from '../support/test-adapter.js';

/**
 * Bridge actions through a provider adapter (issue 31), end to end: HTTP → bridge-actions queue → worker →
 * `adapterFor(connector.kind)` → a test adapter registered in PROVIDER_ADAPTERS, which calls a local provider over
 * HTTP. The provider's verdict is the action's: sent, queued (awaiting its callback), a transient failure retried
 * with the same key no sooner than its Retry-After, a permanent refusal with its code and message.
 */
describe('bridge actions through provider adapters', function () {
  this.timeout(30_000);
  const credential = `xoxb-${randomBytes(16).toString('hex')}`;
  const secret = newWebhookSecret();
  let provider: Awaited<ReturnType<typeof startTestProvider>>;
  let a: { token: string };
  const responses: ApiResponse[] = [];
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await harness.call(method, path, { token: a.token, headers, ...(body === undefined ? {} : { body }) });
    responses.push(res);
    return res;
  };
  /** The provider's answer by what the message says: the test names the behaviour in the text. */
  const behaviour = (hit: ProviderHit, nth: number) => {
    const text = String(hit.body.input.text ?? '');
    const id = `P-${hit.idempotencyKey.slice(-8)}`;
    if (text === 'queue') return { status: 200, body: { id, status: 'queued' } };
    if (text === 'flaky' && nth === 1)
      return { status: 503, body: { code: 'service_unavailable', message: 'try later' }, retryAfterSec: 1 };
    if (text === 'refuse')
      return {
        status: 400,
        body: { code: 'channel_not_found', message: `no such channel (token ${hit.authorization.slice(7)})` },
      };
    return { status: 200, body: { id, status: 'sent', echo: hit.authorization } };
  };
  const settled = (id: string, statuses: string[]) =>
    until(
      () => call('GET', `/v1/bridge/actions/${id}`),
      (r) => statuses.includes(r.body.action?.status),
    );
  const act = async (text: string, capability = 'msg.chat', to: Record<string, unknown> = { channel: '#ops' }) => {
    const made = await call('POST', '/v1/bridge/actions', {
      connectorId: 'slack-test',
      capability,
      input: { ...to, text },
    });
    assert.equal(made.status, 201, made.text);
    return made.body.action;
  };

  /** A slack connector at the provider, without a credential, doing only `cap`. */
  const bareConnector = async (connectorId: string, cap: string) => {
    const made = await call('POST', '/v1/bridge/connectors', {
      connectorId,
      kind: 'slack',
      caps: [cap],
      endpoint: provider.url,
    });
    assert.equal(made.status, 201, made.text);
  };

  before(async () => {
    provider = await startTestProvider('slack', behaviour);
    a = await harness.account();
    responses.push(
      ...(await providerConnector(
        a.token,
        { name: 'slack-bot', kind: 'bearer', value: credential },
        {
          connectorId: 'slack-test',
          kind: 'slack',
          caps: ['msg.chat', 'msg.sms'],
          endpoint: provider.url,
          signingSecret: secret,
        },
      )),
    );
  });
  after(() => provider.stop());

  it('a provider that sends at once: succeeded, with its reference and a proof of the call', async () => {
    const action = await act('hello ops');
    const done = await settled(action.actionId, ['succeeded', 'failed']);
    const got = done.body.action;
    assert.equal(got.status, 'succeeded', done.text);
    const hits = provider.hits.filter((h) => h.idempotencyKey === action.actionId);
    assert.equal(hits.length, 1, 'one call, keyed by the action id');
    assert.equal(hits[0]!.authorization, `Bearer ${credential}`, 'the credential opened from the vault');
    assert.deepEqual(hits[0]!.body, { capability: 'msg.chat', input: { channel: '#ops', text: 'hello ops' } });
    assert.equal(got.providerRef, `P-${action.actionId.slice(-8)}`);
    assert.equal(got.request.adapter, 'slack');
    assert.equal(got.request.credential.tokenRef, 'cred:slack-bot');
    assert.match(got.proof.requestSha256, /^[0-9a-f]{64}$/);
    assert.match(got.proof.responseSha256, /^[0-9a-f]{64}$/);
    assert.equal(got.proof.requestSha256, got.request.bodySha256);
    assert.equal(got.response.body.echo, 'Bearer [redacted]', 'an echoed credential is masked');
    assert.ok(!responses.some((r) => r.text.includes(credential)), 'no credential value in any response');
  });

  it("a provider that queues it: awaitingProvider until its callback, found by the provider's ref", async () => {
    const action = await act('queue');
    const waiting = (await settled(action.actionId, ['awaitingProvider', 'failed'])).body.action;
    assert.equal(waiting.status, 'awaitingProvider');
    assert.ok(waiting.clientDeadline, 'it waits until a deadline');
    assert.deepEqual(waiting.allowedTransitions, ['succeeded', 'delivered', 'failed', 'timedOut']);
    const run = await call('POST', `/v1/bridge/actions/${action.actionId}/run`);
    assert.deepEqual([run.status, run.body.action.status], [202, 'awaitingProvider'], 'under way: nothing resent');
    // The provider's delivery callback, signed as it sends it.
    const raw = JSON.stringify({ MessageSid: waiting.providerRef, MessageStatus: 'delivered' });
    const id = `msg_${randomBytes(6).toString('hex')}`;
    const posted = await harness.call('POST', '/v1/channels/callbacks?connectorId=slack-test', {
      token: a.token,
      raw,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': new Webhook(secret).sign(id, new Date(), raw),
      },
    });
    assert.equal(posted.status, 201, posted.text);
    assert.equal(posted.body.callback.reconciliation.result, 'actionUpdated', posted.text);
    const delivered = (await call('GET', `/v1/bridge/actions/${action.actionId}`)).body.action;
    assert.equal(delivered.status, 'delivered');
    assert.equal(provider.hits.filter((h) => h.idempotencyKey === action.actionId).length, 1);
  });

  it('a provider that never calls back: timedOut at its deadline; run asks it again with the same key', async () => {
    const action = await act('queue');
    await settled(action.actionId, ['awaitingProvider']);
    // The deadline passed and its job is gone (days later, Redis lost it): the sweep puts the job back, due now.
    await harness.deps
      .db('bridge_actions')
      .where({ id: action.actionId })
      .update({ client_deadline: harness.deps.db.raw("now() - interval '5 minutes'") });
    await harness.deps.queues.queue(BRIDGE_ACTIONS_QUEUE).remove(`${action.actionId}.timeout.1`);
    assert.ok((await sweepActions(harness.deps)).requeued >= 1);
    const timedOut = (await settled(action.actionId, ['timedOut'])).body.action;
    assert.match(timedOut.error.message, /the provider took it but did not report its outcome in time/);
    const again = await call('POST', `/v1/bridge/actions/${action.actionId}/run`);
    assert.deepEqual([again.status, again.body.action.status], [202, 'queued']);
    const back = (await settled(action.actionId, ['awaitingProvider'])).body.action;
    assert.equal(back.attempts, 2);
    const keys = provider.hits.filter((h) => h.idempotencyKey === action.actionId);
    assert.equal(keys.length, 2, 'asked twice, with the same idempotency key');
  });

  it('a transient failure is retried with the same key, no sooner than the Retry-After, then succeeds', async () => {
    const action = await act('flaky');
    const done = (await settled(action.actionId, ['succeeded', 'failed'])).body.action;
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempts, 2);
    const hits = provider.hits.filter((h) => h.idempotencyKey === action.actionId);
    assert.equal(hits.length, 2, 'two calls with the same idempotency key');
    assert.deepEqual(
      done.history.map((m: any) => m.to),
      ['queued', 'running', 'retrying', 'running', 'succeeded'],
    );
    // The retry waited for the provider's Retry-After (1 s), not the tests' 100 ms base delay.
    const at = (i: number) => Date.parse(done.history[i].at);
    assert.ok(at(3) - at(2) >= 900, `the second call came ${at(3) - at(2)} ms after the first failed`);
    assert.equal(done.history[2].note, 'try later', "the provider's message");
  });

  it("a permanent refusal fails at once with the provider's code and message, the credential masked", async () => {
    const action = await act('refuse');
    const done = (await settled(action.actionId, ['succeeded', 'failed'])).body.action;
    assert.equal(done.status, 'failed');
    assert.equal(done.attempts, 1, 'not retried');
    assert.equal(done.error.code, 'channel_not_found');
    assert.equal(done.error.provider, 'slack');
    assert.equal(done.error.transient, false);
    assert.match(done.error.message, /^no such channel \(token \[redacted\]\)$/);
    assert.ok(!responses.some((r) => r.text.includes(credential)), 'no credential value in any response');
  });

  it('a capability the adapter does not do fails without a call, naming what it does', async () => {
    const before = provider.hits.length;
    await bareConnector('slack-voice', 'msg.voice');
    const action = (
      await call('POST', '/v1/bridge/actions', {
        connectorId: 'slack-voice',
        capability: 'msg.voice',
        input: { to: '+49305550155', text: 'hi', outreach: { ...daytimeOutreach(), consentToCall: true } },
      })
    ).body.action;
    const done = (await settled(action.actionId, ['succeeded', 'failed'])).body.action;
    assert.deepEqual([done.status, done.error.code], ['failed', 'unsupported']);
    assert.match(done.error.message, /does not do msg\.voice/);
    assert.equal(provider.hits.length, before);
  });

  it('a pay.* capability never reaches an adapter from a bridge action: money moves only under a mandate', async () => {
    const before = provider.hits.length;
    await bareConnector('slack-charge', 'pay.charge');
    const created = await call('POST', '/v1/bridge/actions', {
      connectorId: 'slack-charge',
      capability: 'pay.charge',
      input: { amount: 100, currency: 'USD' },
    });
    if (created.status === 202 || created.status === 201) {
      const done = (await settled(created.body.action.actionId, ['succeeded', 'failed'])).body.action;
      assert.deepEqual([done.status, done.error.code], ['failed', 'mandateRequired']);
    } else assert.ok(created.status >= 400 && created.status < 500, created.text);
    assert.equal(provider.hits.length, before);
  });
});
