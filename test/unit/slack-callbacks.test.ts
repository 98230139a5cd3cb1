import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import type { ProviderCallback } from '../../jobs/bridge/providers/adapter.js';
import { slackAdapter } from '../../jobs/bridge/providers/slack.js';
import { SLACK_SIGNATURE_TOLERANCE_S } from '../../jobs/bridge/providers/slack-callbacks.js';

/**
 * What Slack sends back, signed here as Slack signs it (v0=<hex HMAC-SHA256 of "v0:<ts>:<raw body>"> with the app's
 * signing secret): button clicks (`payload=` form), thread replies (Events API JSON), the url_verification challenge.
 */
describe('Slack callbacks: signing secret verified, interactions and thread replies parsed', () => {
  const secret = randomBytes(16).toString('hex');
  const now = new Date('2025-03-01T12:00:00Z');
  const unix = Math.floor(now.getTime() / 1000);
  const sign = (body: string, at = unix, key = secret) =>
    `v0=${createHmac('sha256', key).update(`v0:${at}:${body}`).digest('hex')}`;
  function callback(body: string, contentType: string, at = unix, key = secret): ProviderCallback {
    return {
      rawBody: body,
      contentType,
      headers: { 'x-slack-request-timestamp': String(at), 'x-slack-signature': sign(body, at, key) },
      url: 'https://awp.example.org/v1/channels/callbacks/acc/team-slack',
      receivedAt: now,
    };
  }
  const click = (value: string, extra: Record<string, unknown> = {}) =>
    callback(
      new URLSearchParams({
        payload: JSON.stringify({
          type: 'block_actions',
          trigger_id: '123.456.abc',
          user: { id: 'U0OLGA' },
          container: { type: 'message', message_ts: '1700000001.000100', channel_id: 'C0OPS' },
          channel: { id: 'C0OPS' },
          actions: [{ type: 'button', action_id: 'awp_reply_0', value, action_ts: '1700000050.1' }],
          ...extra,
        }),
      }).toString(),
      'application/x-www-form-urlencoded',
    );
  const event = (e: Record<string, unknown>, id = 'Ev0ABC') =>
    callback(JSON.stringify({ type: 'event_callback', event_id: id, event: e }), 'application/json');

  it('a button click: verified (its trigger_id names it), the reply is its value, answering the posted message', () => {
    const c = click('yes');
    assert.deepEqual(slackAdapter.verifyCallback!(c, secret), { ok: true, externalId: '123.456.abc' });
    assert.deepEqual(slackAdapter.parseCallback!(c), [
      {
        kind: 'inbound',
        from: 'U0OLGA',
        to: 'C0OPS',
        text: 'yes',
        providerRef: null,
        inReplyTo: 'C0OPS:1700000001.000100',
      },
    ]);
    assert.deepEqual(slackAdapter.callbackReply!([], c), { contentType: 'text/plain', body: '' });
  });

  it('a reply in the thread: inReplyTo is channel:thread_ts; a message outside a thread answers nothing', () => {
    const reply = event({
      type: 'message',
      channel: 'C0OPS',
      user: 'U0OLGA',
      text: 'no',
      ts: '1700000060.2',
      thread_ts: '1700000001.000100',
    });
    assert.deepEqual(slackAdapter.verifyCallback!(reply, secret), { ok: true, externalId: 'Ev0ABC' });
    assert.deepEqual(slackAdapter.parseCallback!(reply), [
      {
        kind: 'inbound',
        from: 'U0OLGA',
        to: 'C0OPS',
        text: 'no',
        providerRef: 'C0OPS:1700000060.2',
        inReplyTo: 'C0OPS:1700000001.000100',
      },
    ]);
    const loose = event({ type: 'message', channel: 'D0OLGA', user: 'U0OLGA', text: 'hi', ts: '1700000070.3' });
    assert.deepEqual(slackAdapter.parseCallback!(loose), [
      {
        kind: 'inbound',
        from: 'U0OLGA',
        to: 'D0OLGA',
        text: 'hi',
        providerRef: 'D0OLGA:1700000070.3',
        inReplyTo: null,
      },
    ]);
  });

  it("the bot's own posts, edits and joins are no replies", () => {
    for (const e of [
      { type: 'message', channel: 'C0OPS', bot_id: 'B1', text: 'the summary', ts: '1.1', thread_ts: '1.0' },
      { type: 'message', subtype: 'message_changed', channel: 'C0OPS', ts: '1.2', message: {} },
      { type: 'message', subtype: 'channel_join', channel: 'C0OPS', user: 'U1', ts: '1.3' },
      { type: 'reaction_added', user: 'U1', reaction: 'thumbsup' },
    ])
      assert.deepEqual(slackAdapter.parseCallback!(event(e)), []);
  });

  it('url_verification: verified, no event, and the route answers the challenge as text', () => {
    const body = JSON.stringify({ token: 'legacy', challenge: 'Xy3z_challenge', type: 'url_verification' });
    const c = callback(body, 'application/json');
    assert.deepEqual(slackAdapter.verifyCallback!(c, secret), {
      ok: true,
      externalId: 'url_verification:Xy3z_challenge',
    });
    assert.deepEqual(slackAdapter.parseCallback!(c), []);
    assert.deepEqual(slackAdapter.callbackReply!([], c), {
      contentType: 'text/plain',
      body: 'Xy3z_challenge',
    });
  });

  it('a wrong signature, another secret, a changed body, or no signature: refused', () => {
    const c = click('yes');
    assert.deepEqual(
      slackAdapter.verifyCallback!(
        { ...c, headers: { ...c.headers, 'x-slack-signature': `v0=${'0'.repeat(64)}` } },
        secret,
      ),
      {
        ok: false,
        reason: 'signature mismatch',
      },
    );
    assert.equal(slackAdapter.verifyCallback!(callback(c.rawBody, c.contentType, unix, 'other'), secret).ok, false);
    assert.equal(slackAdapter.verifyCallback!({ ...c, rawBody: click('no').rawBody }, secret).ok, false);
    assert.match(
      (slackAdapter.verifyCallback!({ ...c, headers: {} }, secret) as { reason: string }).reason,
      /unsigned/,
    );
  });

  it(`a timestamp more than ${SLACK_SIGNATURE_TOLERANCE_S} s away is a replay, even correctly signed`, () => {
    const body = click('yes').rawBody;
    const old = slackAdapter.verifyCallback!(callback(body, 'application/x-www-form-urlencoded', unix - 301), secret);
    assert.equal(old.ok, false);
    assert.match((old as { reason: string }).reason, /more than 300 s away/);
    assert.equal(
      slackAdapter.verifyCallback!(callback(body, 'application/x-www-form-urlencoded', unix + 400), secret).ok,
      false,
    );
    assert.equal(
      slackAdapter.verifyCallback!(callback(body, 'application/x-www-form-urlencoded', unix - 290), secret).ok,
      true,
    );
  });
});
