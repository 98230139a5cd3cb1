import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { numberWhereLocalHourIs, zoneAtLocalHour } from '../support/outreach.js';

/**
 * The outreach gate cannot be stepped around: it finds the recipient whatever the field is called (nested, in free
 * text), refuses an action whose recipient it cannot find, and checks quiet hours without recipientTimezone in the
 * phone number's country's zone, deferring when there is no single zone to check them in.
 */
describe('outreach gate: fail closed', function () {
  this.timeout(20_000);
  let a: { token: string };
  const act = (capability: string, input: Record<string, unknown>) =>
    harness.call('POST', '/v1/bridge/actions', { token: a.token, body: { connectorId: 'contact', capability, input } });
  const rules = (res: { body: any }) => res.body.details.outreach.reasons.map((r: any) => r.rule);
  before(async () => {
    a = await harness.account();
    const made = await harness.call('POST', '/v1/bridge/connectors', {
      token: a.token,
      body: {
        connectorId: 'contact',
        kind: 'custom',
        caps: ['sms.send', 'email.send', 'voice.call'],
        endpoint: 'bridge://client/contact',
      },
    });
    assert.equal(made.status, 201, made.text);
  });

  it('finds the recipient under any field name, nested or in text, and checks it', async () => {
    const inputs = [
      { number: '+49305550111', text: 'hi' },
      { destination: '+49 30 5550111', text: 'hi' },
      { message: { targets: [{ msisdn: '+49305550111' }] } },
      { body: 'please text +49 30 5550111 about Monday' },
    ];
    for (const input of inputs) {
      const res = await act('sms.send', input);
      assert.equal(res.status, 422, `${JSON.stringify(input)}: ${res.text}`);
      assert.deepEqual(rules(res), ['outreach.noLawfulBasis'], JSON.stringify(input));
      assert.equal(res.body.details.outreach.recipient, '+49305550111');
    }
    const mail = await act('email.send', { envelope: { rcpt: 'Kim <Kim@Example.com>' }, subject: 'hello' });
    assert.equal(mail.status, 422, mail.text);
    assert.equal(mail.body.details.outreach.recipient, 'kim@example.com');

    const ok = await act('sms.send', {
      number: '+49305550111',
      text: 'hi',
      outreach: { lawfulBasis: 'contract', recipientTimezone: zoneAtLocalHour(12) },
    });
    assert.equal(ok.status, 201, ok.text);
  });

  it('every recipient in the input is checked: a suppressed one anywhere refuses the action', async () => {
    const sup = await harness.call('POST', '/v1/compliance/suppressions', {
      token: a.token,
      body: { recipient: '+49 30 5550222' },
    });
    assert.equal(sup.status, 201, sup.text);
    const res = await act('sms.send', {
      to: '+49305550111',
      cc: { destination: '+49305550222' },
      outreach: { lawfulBasis: 'contract', recipientTimezone: zoneAtLocalHour(12) },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual([res.body.details.outreach.recipient, rules(res)], ['+49305550222', ['outreach.suppressed']]);
    assert.deepEqual(
      res.body.details.decisions.map((d: any) => [d.recipient, d.decision]),
      [
        ['+49305550111', 'allow'],
        ['+49305550222', 'deny'],
      ],
    );
  });

  it('an action contacting a person with no recipient the gate can find is refused; nothing is written', async () => {
    for (const input of [{ text: 'hi' }, { number: '030 5550111', text: 'a national number only' }, {}]) {
      const res = await act('sms.send', input);
      assert.equal(res.status, 422, `${JSON.stringify(input)}: ${res.text}`);
      assert.deepEqual(rules(res), ['outreach.noRecipient']);
      assert.match(res.body.message, /names no recipient the gate can check/);
    }
    const many = await act('sms.send', { list: Array.from({ length: 11 }, (_, i) => `+4930555030${10 + i}`) });
    assert.equal(many.status, 422, many.text);
    assert.deepEqual(rules(many), ['outreach.tooManyRecipients']);
    const actions = await harness.call('GET', '/v1/bridge/actions?connectorId=contact', { token: a.token });
    assert.equal(actions.body.actions.length, 1, 'only the allowed action of the first test was written');
  });

  it("quiet hours without recipientTimezone are checked in the number's country, when it has one zone", async () => {
    const night = numberWhereLocalHourIs(1, 6);
    const day = numberWhereLocalHourIs(10, 18);
    assert.ok(night && day, 'some single-zone country is at night and another at midday right now');
    const deferred = await act('sms.send', { to: night.number, outreach: { lawfulBasis: 'contract' } });
    assert.equal(deferred.status, 422, deferred.text);
    assert.deepEqual(rules(deferred), ['outreach.quietHours']);
    assert.match(deferred.body.message, /^Outreach deferred for /);
    assert.ok(deferred.body.details.outreach.reasons[0].message.includes(night.zone), deferred.text);
    assert.ok(Date.parse(deferred.body.details.outreach.notBefore) > Date.now());
    const allowed = await act('sms.send', { to: day.number, outreach: { lawfulBasis: 'contract' } });
    assert.equal(allowed.status, 201, allowed.text);
  });

  it('a number whose country spans several time zones is deferred unless recipientTimezone is given', async () => {
    const input = { to: '+1 212 555 0100', text: 'hi', outreach: { lawfulBasis: 'contract' } };
    const deferred = await act('sms.send', input);
    assert.equal(deferred.status, 422, deferred.text);
    assert.deepEqual(
      [rules(deferred), deferred.body.details.outreach.decision, deferred.body.details.outreach.notBefore],
      [['outreach.unknownTimezone'], 'defer', null],
    );
    assert.match(deferred.body.message, /give outreach\.recipientTimezone/);
    const given = await act('sms.send', {
      ...input,
      outreach: { lawfulBasis: 'contract', recipientTimezone: zoneAtLocalHour(12) },
    });
    assert.equal(given.status, 201, given.text);
    const email = await act('email.send', { to: 'kim@example.com', outreach: { lawfulBasis: 'contract' } });
    assert.equal(email.status, 201, 'email does not wait for quiet hours, so it needs no time zone');

    const evaluated = await harness.call('POST', '/v1/compliance/outreach/evaluate', {
      token: a.token,
      body: { channel: 'call', recipient: '+1 212 555 0100', lawfulBasis: 'contract', consentToCall: true },
    });
    assert.equal(evaluated.status, 200, evaluated.text);
    assert.deepEqual([evaluated.body.decision, evaluated.body.reasons[0].rule], ['defer', 'outreach.unknownTimezone']);
  });
});
