import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ProviderCallback } from '../../jobs/bridge/providers/adapter.js';
import { smtpAdapter } from '../../jobs/bridge/providers/smtp.js';
import { MAILGUN_REPLAY_WINDOW_S, mailgunSignature } from '../../jobs/bridge/providers/smtp-inbound.js';

/**
 * Email replies through Mailgun's inbound routes (a `forward()` action POSTing the parsed message as a form): the
 * signature is hex HMAC-SHA256 of timestamp + token with the webhook signing key; the samples are made and signed
 * here as Mailgun makes them (field names from its documentation), in both encodings it uses.
 */
describe('email replies: Mailgun inbound webhooks verified and parsed', () => {
  const key = `key-${randomBytes(16).toString('hex')}`;
  const now = new Date('2025-03-01T12:00:00Z');
  const unix = Math.floor(now.getTime() / 1000);

  function sample(over: Record<string, string> = {}, at = unix, signWith = key) {
    const timestamp = String(at);
    const token = randomBytes(25).toString('hex');
    return {
      sender: 'bounce+abc@mail.example.net',
      from: 'Olga Ops <ops@example.com>',
      recipient: 'replies@awp.example.org',
      subject: 'Re: The summary',
      'body-plain': 'Yes, go ahead.\n\nOn Mon, awp wrote:\n> The summary',
      'stripped-text': 'Yes, go ahead.',
      'Message-Id': '<CAF1234@mail.gmail.com>',
      'In-Reply-To': '<act_mail1@example.com>',
      References: '<act_mail1@example.com>',
      'message-headers': JSON.stringify([['Message-Id', '<CAF1234@mail.gmail.com>']]),
      timestamp,
      token,
      signature: mailgunSignature(signWith, timestamp, token),
      ...over,
    };
  }
  const urlencoded = (fields: Record<string, string>): ProviderCallback => ({
    rawBody: new URLSearchParams(fields).toString(),
    contentType: 'application/x-www-form-urlencoded',
    headers: {},
    url: 'https://awp.example.org/v1/channels/callbacks/acc/mailgun',
    receivedAt: now,
  });
  const multipart = (fields: Record<string, string>): ProviderCallback => {
    const b = `----mg${randomBytes(6).toString('hex')}`;
    const parts = Object.entries(fields).map(
      ([k, v]) => `--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
    );
    const file = `--${b}\r\nContent-Disposition: form-data; name="attachment-1"; filename="a.txt"\r\n\r\nfile\r\n`;
    return {
      ...urlencoded({}),
      rawBody: `${parts.join('')}${file}--${b}--\r\n`,
      contentType: `multipart/form-data; boundary=${b}`,
    };
  };

  it('a signed reply verifies (its token names it) and parses to one inbound event answering our Message-ID', () => {
    for (const encode of [urlencoded, multipart]) {
      const fields = sample();
      const callback = encode(fields);
      assert.deepEqual(smtpAdapter.verifyCallback!(callback, key), { ok: true, externalId: fields.token });
      assert.deepEqual(smtpAdapter.parseCallback!(callback), [
        {
          kind: 'inbound',
          from: 'ops@example.com',
          to: 'replies@awp.example.org',
          text: 'Yes, go ahead.',
          providerRef: '<CAF1234@mail.gmail.com>',
          inReplyTo: '<act_mail1@example.com>',
        },
      ]);
    }
  });

  it('no In-Reply-To: the last of References; no stripped-text: body-plain; a header from message-headers', () => {
    const {
      'In-Reply-To': _r,
      'Message-Id': _m,
      ...fields
    } = sample({
      References: '<first@x.example> <act_9@example.com>',
      'stripped-text': '',
      'body-plain': ' no \n',
    });
    const [event] = smtpAdapter.parseCallback!(urlencoded(fields));
    assert.deepEqual(event, {
      kind: 'inbound',
      from: 'ops@example.com',
      to: 'replies@awp.example.org',
      text: 'no',
      providerRef: '<CAF1234@mail.gmail.com>',
      inReplyTo: '<act_9@example.com>',
    });
  });

  it('a wrong signature, another key, a changed field of the signature, or none at all: refused', () => {
    const wrong = sample({ signature: 'ab'.repeat(32) });
    assert.deepEqual(smtpAdapter.verifyCallback!(urlencoded(wrong), key), { ok: false, reason: 'signature mismatch' });
    const other = sample({}, unix, 'key-someone-else');
    assert.equal(smtpAdapter.verifyCallback!(urlencoded(other), key).ok, false);
    const moved = { ...sample(), token: randomBytes(25).toString('hex') };
    assert.equal(smtpAdapter.verifyCallback!(urlencoded(moved), key).ok, false, 'the token is signed');
    const { signature: _s, ...unsigned } = sample();
    assert.match((smtpAdapter.verifyCallback!(urlencoded(unsigned), key) as { reason: string }).reason, /unsigned/);
    const junk = sample({ signature: 'not-hex' });
    assert.equal(smtpAdapter.verifyCallback!(urlencoded(junk), key).ok, false);
  });

  it(`an old (or future) timestamp is a replay: refused outside ${MAILGUN_REPLAY_WINDOW_S} s, accepted inside`, () => {
    const old = sample({}, unix - MAILGUN_REPLAY_WINDOW_S - 1);
    const verdict = smtpAdapter.verifyCallback!(urlencoded(old), key);
    assert.equal(verdict.ok, false);
    assert.match((verdict as { reason: string }).reason, /outside the 300 s window/);
    assert.equal(smtpAdapter.verifyCallback!(urlencoded(sample({}, unix + 3600)), key).ok, false);
    assert.equal(smtpAdapter.verifyCallback!(urlencoded(sample({}, unix - 299)), key).ok, true);
  });

  it('a redelivery has the same externalId (its token), so the route records it once', () => {
    const fields = sample();
    const a = smtpAdapter.verifyCallback!(urlencoded(fields), key);
    const b = smtpAdapter.verifyCallback!(multipart(fields), key);
    assert.deepEqual(a, b);
  });
});
