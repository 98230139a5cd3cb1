import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { harness } from '../support/harness.js';
import { daytimeOutreach } from '../support/outreach.js';
import { until } from '../support/receiver.js';

/**
 * Provider callbacks end to end: signed with the standardwebhooks package as
 * a provider would, verified over the raw body, normalised, stored once and
 * reconciled with bridge actions and proxy missions; the thread's timeline
 * shows actions, touchpoints and callbacks in order.
 */
describe('channels: provider callbacks reconcile actions and missions', function () {
  this.timeout(30_000);
  const secret = newWebhookSecret();
  let a: { token: string };
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    harness.call(method, path, { token: a.token, headers, ...(body === undefined ? {} : { body }) });
  /** Posts a callback as its provider sends it: the exact bytes that were signed. */
  const callback = (payload: unknown, opts: { id?: string; at?: Date; key?: string; hub?: boolean } = {}) => {
    const raw = JSON.stringify(payload);
    const id = opts.id ?? `msg_${randomBytes(6).toString('hex')}`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.hub)
      headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', opts.key ?? secret)
        .update(raw)
        .digest('hex')}`;
    else
      Object.assign(headers, {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor((opts.at ?? new Date()).getTime() / 1000)),
        'webhook-signature': new Webhook(opts.key ?? secret).sign(id, opts.at ?? new Date(), raw),
      });
    return harness.call('POST', '/v1/channels/callbacks?connectorId=relay', { token: a.token, raw, headers });
  };
  before(async () => {
    a = await harness.account();
    const made = await call('POST', '/v1/bridge/connectors', {
      connectorId: 'relay',
      kind: 'custom',
      caps: ['sms.send'],
      endpoint: 'bridge://client/relay',
      signingSecret: secret,
    });
    assert.equal(made.status, 201, made.text);
  });

  it(
    'a signed delivery status moves its action to delivered; forged, stale and unsigned ones are refused; the ' +
      'timeline orders it all',
    async () => {
      const thread = (
        await call('POST', '/v1/channels/threads', {
          externalKey: `t-${randomBytes(3).toString('hex')}`,
          channel: 'sms',
        })
      ).body.thread;
      const out = await call('POST', '/v1/channels/touchpoints', {
        threadId: thread.threadId,
        direction: 'outbound',
        status: 'drafted',
      });
      const action = (
        await call('POST', '/v1/bridge/actions', {
          connectorId: 'relay',
          capability: 'sms.send',
          threadId: thread.threadId,
          input: { to: '+49305550155', text: 'hi', outreach: daytimeOutreach() },
        })
      ).body.action;
      await until(
        () => call('GET', `/v1/bridge/actions/${action.actionId}`),
        (r) => r.body.action.status === 'awaitingClient',
      );
      await call('POST', `/v1/bridge/actions/${action.actionId}/update`, { status: 'succeeded', providerRef: 'SM42' });

      const forged = await callback({ MessageSid: 'SM42', MessageStatus: 'delivered' }, { key: newWebhookSecret() });
      assert.equal(forged.status, 401, forged.text);
      assert.equal(
        (await callback({ MessageSid: 'SM42', MessageStatus: 'delivered' }, { at: new Date(Date.now() - 3600_000) }))
          .status,
        401,
        'stale',
      );
      assert.equal(
        (
          await call('POST', '/v1/channels/callbacks?connectorId=relay', {
            MessageSid: 'SM42',
            MessageStatus: 'delivered',
          })
        ).status,
        401,
        'unsigned',
      );
      assert.equal(
        (await call('GET', `/v1/bridge/actions/${action.actionId}`)).body.action.status,
        'succeeded',
        'nothing refused changed the action',
      );

      const ok = await callback({ MessageSid: 'SM42', MessageStatus: 'delivered' });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(
        [ok.body.callback.kind, ok.body.callback.status, ok.body.callback.signature, ok.body.callback.threadId],
        ['deliveryStatus', 'delivered', 'standardWebhooks', thread.threadId],
      );
      assert.deepEqual(ok.body.callback.reconciliation, {
        result: 'actionUpdated',
        actionId: action.actionId,
        from: 'succeeded',
        to: 'delivered',
      });
      assert.equal((await call('GET', `/v1/bridge/actions/${action.actionId}`)).body.action.status, 'delivered');

      const inbound = await callback({ threadId: thread.threadId, from: '+4930555', text: 'Thanks!' }, { hub: true });
      assert.equal(inbound.status, 201, inbound.text);
      assert.equal(inbound.body.callback.signature, 'hubSignature256');
      const timeline = (await call('GET', `/v1/channels/threads/${thread.threadId}/timeline`)).body.entries;
      assert.deepEqual(
        timeline.map((e: any) => e.kind),
        ['touchpoint', 'action', 'callback', 'callback', 'touchpoint'],
      );
      assert.equal(timeline[0].ref, out.body.touchpoint.touchpointId);
      assert.equal(timeline[1].ref, action.actionId);
      const ats = timeline.map((e: any) => Date.parse(e.at));
      assert.deepEqual(
        ats,
        [...ats].sort((x, y) => x - y),
      );
    },
  );

  it('a proxy-outcome callback resolves its mission exactly once', async () => {
    const task = (await call('POST', '/v1/tasks', { domain: 'proxy', inData: {} })).body.task;
    const mission = (
      await call('POST', '/v1/proxy/missions', {
        taskId: task.taskId,
        kind: 'message',
        reason: 'humanReviewerNeeded',
        task: 'Ask for the quote',
      })
    ).body.mission;
    const payload = {
      type: 'proxy.outcome',
      data: { callbackRef: mission.callbackRef, outcome: { status: 'confirmedSuccess', note: 'quote received' } },
    };
    const first = await callback(payload, { id: 'msg_outcome_1' });
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(
      [
        first.body.callback.kind,
        first.body.callback.reconciliation.result,
        first.body.callback.reconciliation.missionStatus,
      ],
      ['proxyOutcome', 'missionResolved', 'resolved'],
    );
    const resent = await callback(payload, { id: 'msg_outcome_1' });
    assert.deepEqual(
      [resent.status, resent.body.duplicate, resent.body.callback.callbackId],
      [200, true, first.body.callback.callbackId],
    );
    const another = await callback(payload, { id: 'msg_outcome_2' });
    assert.equal(another.body.callback.reconciliation.result, 'refused');
    const after = (await call('GET', `/v1/proxy/missions/${mission.proxyId}`)).body.mission;
    assert.equal(after.history.filter((m: any) => m.to === 'resolved').length, 1);
    assert.equal(after.outcome.note, 'quote received');
    const listed = await call('GET', '/v1/channels/callbacks?kind=proxyOutcome');
    assert.equal(listed.body.callbacks.length, 2);
  });
});
