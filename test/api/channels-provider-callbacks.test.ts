import assert from 'node:assert/strict';
import twilio from 'twilio';
import { harness } from '../support/harness.js';
import { twilioAccount, TWILIO_TOKEN, type TwilioAccount } from '../support/twilio-account.js';

/** POST /v1/channels/callbacks/{accountId}/{connectorId}: a provider's callback, its signature the authentication. */
describe('provider callbacks (POST /v1/channels/callbacks/{accountId}/{connectorId})', function () {
  this.timeout(30_000);
  let a: TwilioAccount;
  let b: TwilioAccount;
  before(async () => {
    // No call reaches Twilio here: the endpoint is never dialled.
    a = await twilioAccount('https://api.twilio.com');
    b = await twilioAccount('https://api.twilio.com', 'twilio-b');
  });

  const params = (sid: string) => ({ MessageSid: sid, MessageStatus: 'delivered', To: '+4915112345678' });
  const path = (accountId: string, connectorId: string) => `/v1/channels/callbacks/${accountId}/${connectorId}`;
  const publicUrl = (accountId: string, connectorId: string) =>
    `http://localhost:${harness.config.PORT}${path(accountId, connectorId)}`;
  const post = (
    p: string,
    form: Record<string, string>,
    signature?: string,
    type = 'application/x-www-form-urlencoded',
  ) =>
    harness.call('POST', p, {
      raw: type.includes('json') ? JSON.stringify(form) : new URLSearchParams(form).toString(),
      headers: { 'content-type': type, ...(signature ? { 'x-twilio-signature': signature } : {}) },
    });
  const signed = (acct: TwilioAccount, form: Record<string, string>) =>
    post(
      path(acct.accountId, acct.connectorId),
      form,
      twilio.getExpectedTwilioSignature(TWILIO_TOKEN, publicUrl(acct.accountId, acct.connectorId), form),
    );

  it('a signed status callback is answered with TwiML and stored once per SID and status', async () => {
    const form = params(`SM${'1'.repeat(32)}`);
    const res = await signed(a, form);
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /text\/xml/);
    assert.equal((await signed(a, form)).status, 200, 'a redelivery is answered the same');
    const list = await harness.call('GET', `/v1/channels/callbacks?connectorId=${a.connectorId}`, { token: a.token });
    const mine = list.body.callbacks.filter((c: any) => c.externalId === `${form.MessageSid}:delivered`);
    assert.equal(mine.length, 1);
    assert.deepEqual([mine[0].kind, mine[0].status, mine[0].signature], ['deliveryStatus', 'delivered', 'provider']);
    assert.equal(mine[0].reconciliation.result, 'noAction');
  });

  it('400 for an empty body or malformed JSON', async () => {
    const empty = await harness.call('POST', path(a.accountId, a.connectorId), {
      raw: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'x' },
    });
    assert.equal(empty.status, 400, empty.text);
    const broken = await harness.call('POST', path(a.accountId, a.connectorId), {
      raw: '{"MessageSid":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(broken.status, 400, broken.text);
  });

  it('401 without a signature, with a forged one, or signed with another key; no token needed', async () => {
    const form = params(`SM${'2'.repeat(32)}`);
    const p = path(a.accountId, a.connectorId);
    assert.equal((await post(p, form)).status, 401);
    assert.equal((await post(p, form, 'bm9wZQ==')).status, 401);
    const other = twilio.getExpectedTwilioSignature('0'.repeat(32), publicUrl(a.accountId, a.connectorId), form);
    const res = await post(p, form, other);
    assert.equal(res.status, 401);
    assert.match(res.body.message, /X-Twilio-Signature/);
    const json = await post(p, form, 'x', 'application/json');
    assert.equal(json.status, 401);
  });

  it("404 for an unknown connector and for another account's connector, the same answer", async () => {
    const form = params(`SM${'3'.repeat(32)}`);
    const unknown = await post(path(a.accountId, 'nope'), form, 'x');
    const crossed = await post(path(a.accountId, b.connectorId), form, 'x');
    const swapped = await post(path(b.accountId, a.connectorId), form, 'x');
    assert.deepEqual([unknown.status, crossed.status, swapped.status, crossed.body.error], [404, 404, 404, 'notFound']);
  });

  it("a Twilio connector's signing secret is an auth token: a whsec_ secret is 400 naming the contract", async () => {
    const bad = await harness.call('POST', `/v1/bridge/connectors/${a.connectorId}/update`, {
      token: a.token,
      body: { signingSecret: `whsec_${Buffer.from('x'.repeat(24)).toString('base64')}` },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.body.message, /auth token \(32 hex characters\)/);
    const good = await harness.call('POST', `/v1/bridge/connectors/${a.connectorId}/update`, {
      token: a.token,
      body: { signingSecret: TWILIO_TOKEN },
    });
    assert.equal(good.status, 200, good.text);
    assert.equal((await signed(a, params(`SM${'4'.repeat(32)}`))).status, 200);
  });
});
