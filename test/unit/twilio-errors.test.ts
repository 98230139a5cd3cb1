import assert from 'node:assert/strict';
import { twilioCredential, twilioFailure } from '../../jobs/bridge/providers/twilio-client.js';
import { twilioOutcome } from '../../jobs/bridge/providers/twilio.js';
import { EgressRefused } from '../../shared/http/egress.js';

describe("Twilio's errors in the service's words", () => {
  const state = { retryAfterMs: 1500 };
  const rest = (status: number, code?: number) => Object.assign(new Error('x'), { status, code });

  it('retries rate limits and outages, honouring Retry-After; a connection that failed is transient', () => {
    assert.deepEqual(twilioFailure(rest(429, 20429), state), {
      code: 'rateLimited',
      message: 'Twilio asked to slow down; retried later',
      transient: true,
      retryAfterMs: 1500,
    });
    assert.equal(twilioFailure(rest(503, 20503), state).transient, true);
    assert.equal(twilioFailure(new Error('socket hang up'), state).code, 'connection');
  });

  it("maps Twilio's codes to permanent answers", () => {
    const codes = [21211, 21610, 21614, 20003].map((c) => twilioFailure(rest(400, c), state));
    assert.deepEqual(
      codes.map((e) => [e.code, e.transient]),
      [
        ['invalidNumber', false],
        ['unsubscribed', false],
        ['notMobile', false],
        ['authentication', false],
      ],
    );
    assert.match(codes[1]!.message, /replied STOP/);
    assert.equal(twilioFailure(new EgressRefused('private'), state).code, 'egressRefused');
  });

  it('reads the credential and the statuses', () => {
    const sid = `AC${'a'.repeat(32)}`;
    assert.deepEqual(twilioCredential(`${sid}:${'b'.repeat(32)}`), { accountSid: sid, authToken: 'b'.repeat(32) });
    assert.equal(twilioCredential('sk_live_nope'), null);
    assert.deepEqual(['queued', 'delivered', 'undelivered'].map(twilioOutcome), ['pending', 'succeeded', 'failed']);
  });
});
