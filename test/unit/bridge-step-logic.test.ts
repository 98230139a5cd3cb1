import assert from 'node:assert/strict';
import { channelInput, emailsIn, readStepRequest, recipientFor } from '../../jobs/bridge/step-logic.js';

/** How the bridge step reads a request: channel, recipient, message and a capability written out. */
describe('bridge step: reading a request', () => {
  const read = (text: string, country?: string) => {
    const r = readStepRequest(text, country);
    return { channel: r.channel, to: r.channel ? (recipientFor(r.channel, r)?.value ?? null) : null, msg: r.message };
  };

  it('reads the three requests of the issue', () => {
    assert.deepEqual(read('email the signed invoice to accounting@example.com'), {
      channel: 'email',
      to: 'accounting@example.com',
      msg: 'the signed invoice',
    });
    assert.deepEqual(read('post the incident summary to #ops'), {
      channel: 'chat',
      to: '#ops',
      msg: 'the incident summary',
    });
    assert.deepEqual(read('text +14155550100 that the van arrives at 3pm'), {
      channel: 'sms',
      to: '+14155550100',
      msg: 'the van arrives at 3pm',
    });
  });

  it('takes the channel from a phrase, else from the only kind of address named', () => {
    assert.deepEqual(read('send the weekly numbers to ceo@example.com'), {
      channel: 'email',
      to: 'ceo@example.com',
      msg: 'the weekly numbers',
    });
    assert.deepEqual(read('send Kim a text at +49 30 5550123 saying "running late"'), {
      channel: 'sms',
      to: '+49305550123',
      msg: 'running late',
    });
    assert.deepEqual(read('let accounting@example.com know by phone at +14155550100 that it is paid'), {
      channel: 'voice',
      to: '+14155550100',
      msg: 'it is paid',
    });
    assert.equal(read('post the release notes in the releases channel').to, '#releases');
    assert.equal(read('share the deck on Slack in #sales').channel, 'chat');
    // A word that only looks like a channel is not one.
    assert.equal(read('forward the note in the text field to kim@example.com').channel, 'email');
  });

  it('a national number counts with the run country; a request without an address has no recipient', () => {
    assert.equal(read('text 030 5550123 that we are outside', 'DE').to, '+49305550123');
    assert.equal(read('text 030 5550123 that we are outside').to, null);
    assert.deepEqual(read('email the signed invoice to accounting'), {
      channel: 'email',
      to: null,
      msg: 'the signed invoice to accounting',
    });
    assert.equal(read('email accounting@example.com').msg, null, 'nothing to say');
    assert.equal(read('sync the CRM connector').channel, null);
  });

  it('finds capabilities written out, never the parts of an address, a host or an abbreviation', () => {
    assert.deepEqual(readStepRequest('run crm.create for Acme Corp').named, ['crm.create']);
    assert.deepEqual(readStepRequest('email kim@example.com, e.g. about example.com/x and v1.2').named, []);
  });

  it('parses addresses the way mail headers write them', () => {
    assert.deepEqual(emailsIn('mail Kim Lee <Kim@Example.org>, bob@example.com. and not bob@ nor @example.com'), [
      'kim@example.org',
      'bob@example.com',
    ]);
  });

  it("shapes the provider's input by channel", () => {
    const email = channelInput('email', { kind: 'email', value: 'a@example.com' }, 'the signed invoice. Thanks');
    assert.deepEqual(email, {
      to: 'a@example.com',
      subject: 'The signed invoice.',
      text: 'the signed invoice. Thanks',
    });
    assert.deepEqual(channelInput('chat', { kind: 'chat', value: '#ops' }, 'hi'), { channel: '#ops', text: 'hi' });
    assert.deepEqual(channelInput('sms', { kind: 'phone', value: '+14155550100' }, 'hi'), {
      to: '+14155550100',
      text: 'hi',
    });
  });
});
