import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { daytimeOutreach } from '../support/outreach.js';
import { until } from '../support/receiver.js';
import {
  twilioAccount,
  TWILIO_NUMBER,
  TWILIO_SID,
  TWILIO_TOKEN,
  type TwilioAccount,
} from '../support/twilio-account.js';
import { startTwilioFake, type TwilioFake } from '../support/twilio-fake.js';

const PLUMBER = '+49305550123';
const KIEZ = 'call Kiez Plumbing at +49 30 5550123 and confirm they can fix the leak on Thursday';

/**
 * Missions that reach people (issue 31): a run's mission goes out through the account's Twilio connector (the stateful
 * fake speaking Twilio's API; the same requests are checked against its OpenAPI), and the person's reply, signed as
 * Twilio signs, resolves it and resumes the run, through the real queue and workers.
 */
describe('a run reaches a person through Twilio and resumes from the reply', function () {
  this.timeout(60_000);
  let fake: TwilioFake;
  before(async () => {
    fake = await startTwilioFake({ accountSid: TWILIO_SID, authToken: TWILIO_TOKEN, deliverTo: harness.url });
  });
  after(() => fake.stop());

  const run = (acct: TwilioAccount, body: object) =>
    harness.call('POST', '/v1/orchestrator/run', { token: acct.token, body });
  const getRun = async (acct: TwilioAccount, runId: string) =>
    (await harness.call('GET', `/v1/runs/${runId}`, { token: acct.token })).body.run;
  const mission = async (acct: TwilioAccount, proxyId: string) =>
    (await harness.call('GET', `/v1/proxy/missions/${proxyId}`, { token: acct.token })).body.mission;
  const sentTo = (to: string, n: number) =>
    until(
      () => [...fake.messages.values()].filter((m) => m.to === to),
      (ms) => ms.length >= n,
    );
  const resumes = async (runId: string) =>
    (await harness.deps.db('run_events').where({ run_id: runId, type: 'trace' })).filter(
      (e) => e.data.event === 'run.resumed',
    ).length;

  it(
    'the mission goes out by SMS through the default connector; the signed reply "Yes, Thursday at 3pm works, 120 ' +
      'EUR" resolves it and the run finishes; the same callback again changes nothing; a wrong signature is 401',
    async () => {
      const acct = await twilioAccount(fake.url);
      const res = await run(acct, { request: KIEZ, metadata: { outreach: daytimeOutreach() } });
      assert.equal(res.body.status, 'awaitingProxy', res.text);
      const out = res.body.results.proxy;
      assert.deepEqual(
        [out.kind, out.channelMsg.to, out.dispatch.channelMsg.connectorId],
        ['message', PLUMBER, 'twilio'],
      );
      const [sms] = await sentTo(PLUMBER, 1);
      assert.equal(sms!.from, TWILIO_NUMBER);
      assert.equal(sms!.statusCallback, acct.callbackUrl, 'Twilio reports back to the connector callback route');
      const action = out.dispatch.channelMsg.actionId;
      const sent = await until(
        async () => (await harness.call('GET', `/v1/bridge/actions/${action}`, { token: acct.token })).body.action,
        (a) => a.status === 'awaitingProvider',
      );
      assert.equal(sent.providerRef, sms!.sid);

      const status = await fake.messageStatus(sms!.sid!, 'delivered');
      assert.deepEqual([status.status, status.contentType.startsWith('text/xml')], [200, true], status.text);
      const delivered = await harness.call('GET', `/v1/bridge/actions/${action}`, { token: acct.token });
      assert.equal(delivered.body.action.status, 'delivered');

      const reply = 'Yes, Thursday at 3pm works, 120 EUR';
      const forged = await fake.inboundSms(acct.callbackUrl, PLUMBER, TWILIO_NUMBER, reply, { signature: 'bm9wZQ==' });
      assert.equal(forged.status, 401, forged.text);
      assert.equal((await mission(acct, out.proxyId)).status, 'open', 'a forged reply changes nothing');

      const answered = await fake.inboundSms(acct.callbackUrl, PLUMBER, TWILIO_NUMBER, reply);
      assert.equal(answered.status, 200, answered.text);
      assert.match(answered.text, /<Response\/>/, 'an SMS webhook is answered with empty TwiML');
      const done = await until(
        () => getRun(acct, res.body.runId),
        (r) => r.status !== 'awaitingProxy' && r.status !== 'running' && r.status !== 'queued',
      );
      assert.equal(done.status, 'ready', JSON.stringify(done).slice(0, 800));
      const m = await mission(acct, out.proxyId);
      assert.deepEqual([m.status, m.outcome.status], ['resolved', 'confirmedSuccess']);
      assert.deepEqual(m.outcome.availability.price, { amount: 120, currency: 'EUR' });
      assert.match(m.outcome.availability.availableAt, /T15:00:00/);
      assert.equal(m.replies.length, 1);
      assert.equal(m.replies[0].settled, true);

      const again = await fake.inboundSms(acct.callbackUrl, PLUMBER, TWILIO_NUMBER, reply, {
        messageSid: answered.messageSid,
      });
      assert.equal(again.status, 200);
      const after = await mission(acct, out.proxyId);
      assert.deepEqual([after.replies.length, after.updatedAt], [1, m.updatedAt], 'a redelivery lands once');
      assert.equal(await resumes(res.body.runId), 1, 'the run resumed exactly once');
    },
  );

  it('an ambiguous reply leaves the mission open with the reply attached for a person to judge', async () => {
    const acct = await twilioAccount(fake.url);
    const res = await run(acct, { request: KIEZ, metadata: { outreach: daytimeOutreach() } });
    const out = res.body.results.proxy;
    await sentTo(PLUMBER, 1);
    const answered = await fake.inboundSms(acct.callbackUrl, PLUMBER, TWILIO_NUMBER, 'Maybe, I have to ask my boss');
    assert.equal(answered.status, 200, answered.text);
    const m = await mission(acct, out.proxyId);
    assert.equal(m.status, 'open');
    assert.deepEqual(
      [m.replies.length, m.replies[0].text, m.replies[0].settled, m.replies[0].parsed.ambiguous],
      [1, 'Maybe, I have to ask my boss', false, true],
    );
    assert.match(m.replies[0].why, /a person judges it/);
    assert.equal((await getRun(acct, res.body.runId)).status, 'awaitingProxy');
  });

  it('a voice mission: the call reads the script and gathers the answer; the gathered speech resolves it', async () => {
    const acct = await twilioAccount(fake.url);
    const res = await run(acct, { request: KIEZ, consentToCall: true, metadata: { outreach: daytimeOutreach() } });
    assert.equal(res.body.status, 'awaitingProxy', res.text);
    const out = res.body.results.proxy;
    assert.equal(out.kind, 'call');
    const [call] = await until(
      () => [...fake.calls.values()].filter((c) => c.to === PLUMBER && c.twiml!.includes('Kiez Plumbing')),
      (cs) => cs.length >= 1,
    );
    assert.match(call!.twiml!, /<Gather input="speech dtmf"/);
    await until(
      async () =>
        (await harness.call('GET', `/v1/bridge/actions/${out.dispatch.voiceCall.actionId}`, { token: acct.token })).body
          .action,
      (a) => a.providerRef === call!.sid,
    );
    const answered = await fake.gathered(call!.sid!, { speech: 'Yes I can come Thursday at 3pm for 120 euros' });
    assert.equal(answered.status, 200, answered.text);
    assert.match(answered.text, /<Hangup\/>/);
    const done = await until(
      () => getRun(acct, res.body.runId),
      (r) => r.status !== 'awaitingProxy' && r.status !== 'running' && r.status !== 'queued',
    );
    assert.equal(done.status, 'ready');
    const m = await mission(acct, out.proxyId);
    assert.deepEqual([m.status, m.outcome.status, m.replies[0].channel], ['resolved', 'confirmedSuccess', 'voice']);
    const ended = await fake.callStatus(call!.sid!, 'completed');
    assert.equal(ended.status, 200);
    const action = await harness.call('GET', `/v1/bridge/actions/${out.dispatch.voiceCall.actionId}`, {
      token: acct.token,
    });
    assert.equal(action.body.action.status, 'delivered');
  });
});
