import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';

/**
 * Provider callbacks are accepted signed, or unsigned only from a connector registered with the explicit development
 * setting `callbackSigning: unsigned`, which production refuses both at registration and at the callback.
 */
describe('channels: unsigned provider callbacks', function () {
  this.timeout(30_000);
  let a: { token: string };
  const connector = (connectorId: string, extra: Record<string, unknown> = {}) => ({
    connectorId,
    kind: 'custom',
    caps: ['sms.send'],
    endpoint: `bridge://client/${connectorId}`,
    ...extra,
  });
  const register = (body: unknown, base?: string) =>
    harness.call('POST', '/v1/bridge/connectors', { token: a.token, body }, base);
  const unsignedCallback = (connectorId: string, base?: string) =>
    harness.call(
      'POST',
      `/v1/channels/callbacks?connectorId=${connectorId}`,
      { token: a.token, body: { MessageSid: 'SM-none', MessageStatus: 'delivered' } },
      base,
    );
  before(async () => {
    a = await harness.account();
  });

  it('a connector without a signing secret has its unsigned callbacks refused with 401 naming the fix', async () => {
    const made = await register(connector('plain'));
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.connector.callbackSigning, 'required');
    const res = await unsignedCallback('plain');
    assert.equal(res.status, 401, res.text);
    assert.match(res.body.message, /connector plain has no signingSecret/);
    assert.match(res.body.message, /POST \/v1\/bridge\/connectors\/plain\/update/);
    assert.match(res.body.message, /callbackSigning: unsigned/);
    const stored = await harness.call('GET', '/v1/channels/callbacks', { token: a.token });
    assert.deepEqual(stored.body.callbacks, [], 'nothing refused was stored');
  });

  it('callbackSigning unsigned accepts them outside production, and a signing secret ends it', async () => {
    const made = await register(connector('dev-relay', { callbackSigning: 'unsigned' }));
    assert.equal(made.status, 201, made.text);
    assert.deepEqual([made.body.connector.callbackSigning, made.body.connector.signed], ['unsigned', false]);
    const ok = await unsignedCallback('dev-relay');
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.callback.signature, 'unsigned');

    const both = await register(connector('both', { callbackSigning: 'unsigned', signingSecret: newWebhookSecret() }));
    assert.equal(both.status, 400, both.text);
    assert.equal(both.body.details.problems[0].path, '/callbackSigning');

    const secret = newWebhookSecret();
    const update = await harness.call('POST', '/v1/bridge/connectors/dev-relay/update', {
      token: a.token,
      body: { signingSecret: secret },
    });
    assert.equal(update.status, 200, update.text);
    assert.deepEqual([update.body.connector.callbackSigning, update.body.connector.signed], ['required', true]);
    const refused = await unsignedCallback('dev-relay');
    assert.equal(refused.status, 401, 'with a secret, a callback must be signed');
    const raw = JSON.stringify({ MessageSid: 'SM-signed', MessageStatus: 'delivered' });
    const signed = await harness.call('POST', '/v1/channels/callbacks?connectorId=dev-relay', {
      token: a.token,
      raw,
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_signed_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': new Webhook(secret).sign('msg_signed_1', new Date(), raw),
      },
    });
    assert.equal(signed.status, 201, signed.text);
    assert.equal(signed.body.callback.signature, 'standardWebhooks');
  });

  it('production refuses the unsigned setting at registration and update, and its callbacks', async () => {
    const before = await register(connector('dev-before-prod', { callbackSigning: 'unsigned' }));
    assert.equal(before.status, 201, before.text);
    const prod = await startExtraApp({ NODE_ENV: 'production' });
    try {
      const made = await register(connector('prod-unsigned', { callbackSigning: 'unsigned' }), prod.url);
      assert.equal(made.status, 400, made.text);
      assert.match(made.body.message, /refused in production \(NODE_ENV=production\)/);
      assert.equal(made.body.details.problems[0].problem, 'unsignedInProduction');
      assert.equal((await register(connector('prod-plain'), prod.url)).status, 201);
      const update = await harness.call(
        'POST',
        '/v1/bridge/connectors/prod-plain/update',
        { token: a.token, body: { callbackSigning: 'unsigned' } },
        prod.url,
      );
      assert.equal(update.status, 400, update.text);
      const callback = await unsignedCallback('dev-before-prod', prod.url);
      assert.equal(callback.status, 401, callback.text);
      assert.match(callback.body.message, /development setting and are refused in production/);
    } finally {
      await prod.stop();
    }
  });
});
