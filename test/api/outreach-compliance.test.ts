import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { zoneAtLocalHour } from '../support/outreach.js';

/**
 * Outreach compliance: every rule, suppressions, the audit list, and the gate before bridge actions and proxy missions.
 */
describe('outreach compliance', function () {
  this.timeout(20_000);
  let a: { token: string };
  let b: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });
  const evaluate = (body: unknown, token = a.token) =>
    harness.call('POST', '/v1/compliance/outreach/evaluate', { token, body });
  const base = {
    channel: 'sms',
    recipient: '+49 30 5550123',
    purpose: 'appointment reminder',
    lawfulBasis: 'contract',
    recipientTimezone: zoneAtLocalHour(12),
  };

  it('allows with a lawful basis, outside quiet hours, and records the decision', async () => {
    const res = await evaluate(base);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.allowed, res.body.decision, res.body.recipient, res.body.notBefore],
      [true, 'allow', '+49305550123', null],
    );
    assert.deepEqual(
      res.body.reasons.map((r: any) => r.rule),
      ['outreach.allowed'],
    );
    const list = await harness.call('GET', '/v1/compliance/outreach/decisions', { token: a.token });
    assert.equal(list.body.decisions[0].decisionId, res.body.decisionId);
    assert.equal(list.body.decisions[0].source, 'evaluate');
  });

  it('denies without a lawful basis, and a call without consent to call', async () => {
    const none = await evaluate({ ...base, lawfulBasis: undefined });
    assert.deepEqual(
      [none.body.allowed, none.body.decision, none.body.reasons.map((r: any) => r.rule)],
      [false, 'deny', ['outreach.noLawfulBasis']],
    );
    const call = await evaluate({ ...base, channel: 'call' });
    assert.deepEqual(
      [call.body.decision, call.body.reasons.map((r: any) => r.rule)],
      ['deny', ['outreach.noConsentForCall']],
    );
    const consentBasis = await evaluate({
      ...base,
      channel: 'email',
      recipient: 'Kim@Example.COM',
      lawfulBasis: 'consent',
    });
    assert.deepEqual(
      [consentBasis.body.decision, consentBasis.body.recipient, consentBasis.body.reasons.map((r: any) => r.rule)],
      ['deny', 'kim@example.com', ['outreach.noConsent']],
    );
    const called = await evaluate({ ...base, channel: 'call', lawfulBasis: 'consent', consentToCall: true });
    assert.equal(called.body.decision, 'allow');
  });

  it("defers in quiet hours in the recipient's time zone, with notBefore at 08:00 there", async () => {
    const zone = zoneAtLocalHour(2);
    const res = await evaluate({ ...base, recipientTimezone: zone });
    assert.deepEqual(
      [res.body.allowed, res.body.decision, res.body.reasons.map((r: any) => r.rule)],
      [false, 'defer', ['outreach.quietHours']],
    );
    const notBefore = new Date(res.body.notBefore);
    assert.ok(notBefore > new Date());
    assert.equal(
      new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
        notBefore,
      ),
      '08:00',
    );
    assert.equal(
      (await evaluate({ ...base, channel: 'email', recipient: 'kim@example.com', recipientTimezone: zone })).body
        .decision,
      'allow',
      'email does not wait out quiet hours',
    );
  });

  it('denies a suppressed recipient (normalised), and allows again once the suppression is deleted', async () => {
    const made = await harness.call('POST', '/v1/compliance/suppressions', {
      token: a.token,
      body: { recipient: '+49 (30) 555-0123', reason: 'asked not to be contacted' },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.suppression.recipient, '+49305550123');
    const again = await harness.call('POST', '/v1/compliance/suppressions', {
      token: a.token,
      body: { recipient: '+49305550123' },
    });
    assert.equal(again.body.suppression.suppressionId, made.body.suppression.suppressionId);
    const denied = await evaluate({ ...base, lawfulBasis: undefined });
    assert.deepEqual(
      denied.body.reasons.map((r: any) => r.rule),
      ['outreach.suppressed', 'outreach.noLawfulBasis'],
    );
    assert.equal((await evaluate(base, b.token)).body.decision, 'allow', 'suppressions are per account');
    const list = await harness.call('GET', '/v1/compliance/suppressions', { token: a.token });
    assert.deepEqual(
      list.body.suppressions.map((s: any) => s.recipient),
      ['+49305550123'],
    );
    assert.equal(
      (
        await harness.call('DELETE', `/v1/compliance/suppressions/${made.body.suppression.suppressionId}`, {
          token: b.token,
        })
      ).status,
      404,
      "another account's suppression",
    );
    assert.equal(
      (
        await harness.call('DELETE', `/v1/compliance/suppressions/${made.body.suppression.suppressionId}`, {
          token: a.token,
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await harness.call('DELETE', `/v1/compliance/suppressions/${made.body.suppression.suppressionId}`, {
          token: a.token,
        })
      ).status,
      404,
    );
    assert.equal((await evaluate(base)).body.decision, 'allow');
    const denies = await harness.call('GET', '/v1/compliance/outreach/decisions?decision=deny', { token: a.token });
    assert.ok(denies.body.decisions.every((d: any) => d.decision === 'deny') && denies.body.decisions.length >= 4);
    assert.deepEqual(
      (await harness.call('GET', '/v1/compliance/outreach/decisions', { token: b.token })).body.decisions.map(
        (d: any) => d.source,
      ),
      ['evaluate'],
    );
  });

  it('400 on bad input, 401 without a token', async () => {
    assert.equal((await evaluate({ ...base, channel: 'fax' })).status, 400);
    assert.equal((await evaluate({ ...base, lawfulBasis: 'vibes' })).status, 400);
    assert.equal((await evaluate({ ...base, recipient: 'not a phone' })).status, 400);
    assert.equal((await evaluate({ ...base, recipientTimezone: 'Mars/Olympus' })).status, 400);
    assert.equal(
      (await harness.call('POST', '/v1/compliance/suppressions', { token: a.token, body: { recipient: 'x@' } })).status,
      400,
    );
    assert.equal((await harness.call('POST', '/v1/compliance/outreach/evaluate', { body: base })).status, 401);
    assert.equal((await harness.call('GET', '/v1/compliance/suppressions')).status, 401);
    assert.equal((await harness.call('DELETE', '/v1/compliance/suppressions/sup_x')).status, 401);
  });

  it('a bridge action that contacts a person is refused with the reasons, and goes out with them met', async () => {
    const made = await harness.call('POST', '/v1/bridge/connectors', {
      token: a.token,
      body: { connectorId: 'texts', kind: 'custom', caps: ['sms.send'], endpoint: 'bridge://client/texts' },
    });
    assert.equal(made.status, 201, made.text);
    const refused = await harness.call('POST', '/v1/bridge/actions', {
      token: a.token,
      body: { connectorId: 'texts', capability: 'sms.send', input: { to: '+49305550999', text: 'hi' } },
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(
      refused.body.details.outreach.reasons.map((r: any) => r.rule),
      ['outreach.noLawfulBasis'],
    );
    assert.equal(refused.body.details.outreach.source, 'bridge.action');
    const input = {
      to: '+49305550999',
      text: 'hi',
      outreach: { lawfulBasis: 'contract', recipientTimezone: zoneAtLocalHour(12) },
    };
    const ok = await harness.call('POST', '/v1/bridge/actions', {
      token: a.token,
      body: { connectorId: 'texts', capability: 'sms.send', input },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(
      ok.body.action.input,
      { to: '+49305550999', text: 'hi' },
      'the outreach object is for the gate, not the provider',
    );
  });

  it('a proxy mission that calls a person without consent is refused and not written', async () => {
    await harness.call('POST', '/v1/bridge/connectors', {
      token: a.token,
      body: { connectorId: 'voice', kind: 'custom', caps: ['voice.call'], endpoint: 'bridge://client/voice' },
    });
    const task = await harness.call('POST', '/v1/tasks', { token: a.token, body: { domain: 'proxy', inData: {} } });
    assert.equal(task.status, 201, task.text);
    const body = {
      taskId: task.body.task.taskId,
      kind: 'call',
      reason: 'localServiceAvailability',
      task: 'Call them',
      voiceCall: { phone: '+49305550777', connectorId: 'voice', outreach: { lawfulBasis: 'legitimateInterest' } },
    };
    const refused = await harness.call('POST', '/v1/proxy/missions', { token: a.token, body });
    assert.equal(refused.status, 422);
    assert.deepEqual(
      [refused.body.details.outreach.source, refused.body.details.outreach.reasons.map((r: any) => r.rule)],
      ['proxy.mission', ['outreach.noConsentForCall']],
    );
    assert.deepEqual((await harness.call('GET', '/v1/proxy/missions', { token: a.token })).body.missions, []);
  });
});
