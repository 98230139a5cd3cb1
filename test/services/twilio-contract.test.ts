import assert from 'node:assert/strict';
import { twilioAdapter } from '../../jobs/bridge/providers/twilio.js';
import { twilioClient } from '../../jobs/bridge/providers/twilio-client.js';
import type { ProviderCallContext } from '../../jobs/bridge/providers/adapter.js';
import { harness } from '../support/harness.js';
import { startPrism, type PrismMock } from '../support/prism.js';
import { documentOrigin, providerDocument, writeSlice, type Operation } from '../support/openapi-slice.js';

/** What the adapter calls (method, path): keep in step with jobs/bridge/providers/twilio.ts. */
const TWILIO_OPERATIONS: Operation[] = [
  ['post', '/2010-04-01/Accounts/{AccountSid}/Messages.json'],
  ['post', '/2010-04-01/Accounts/{AccountSid}/Calls.json'],
];
const origin = documentOrigin(providerDocument('twilio.com/api'));
const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = 'f'.repeat(32);

/**
 * Every request the Twilio adapter makes, sent to Prism serving Twilio's published OpenAPI document (the 2010 API's
 * slice the adapter uses, test/fixtures/providers/README.md) with `--errors`: a request that breaks the contract is
 * refused there (422 and a violation in Prism's log), and fails here. The flow tests make the same calls against the
 * stateful fake (test/support/twilio-fake.ts).
 */
describe(`the Twilio adapter's requests against Twilio's OpenAPI document ${origin.version} (Prism)`, function () {
  this.timeout(300_000);
  let prism: PrismMock;
  let ctx: ProviderCallContext;
  before(async () => {
    prism = await startPrism(writeSlice('twilio.com/api', TWILIO_OPERATIONS), undefined, { dynamic: true });
    ctx = {
      deps: harness.deps,
      connector: {
        endpoint: `${prism.url}?From=%2B15005550006`,
        account_id: 'acct_contract',
        connector_id: 'twilio',
      } as ProviderCallContext['connector'],
      secret: `${ACCOUNT_SID}:${AUTH_TOKEN}`,
      idempotencyKey: 'bac_contract1',
    };
  });
  after(async () => prism?.stop());

  it('an SMS (with its status callback) and a call (TwiML gathering speech or keypad) pass', async () => {
    const sent = await twilioAdapter.call(
      'msg.sms',
      { to: '+4915112345678', body: 'Can you fix a leak on Thursday? Reply YES or NO.' },
      ctx,
    );
    // Prism answers with an example Message (any status): what matters is that it answered one.
    assert.ok(!sent.error || !sent.error.transient, JSON.stringify(sent));
    assert.equal(typeof sent.providerRef, 'string', JSON.stringify(sent));
    const called = await twilioAdapter.call(
      'msg.voice',
      { to: '+4915112345678', script: 'Hello, this is a call about the leak. Can you come on Thursday?' },
      ctx,
    );
    assert.equal(typeof called.providerRef, 'string', JSON.stringify(called) + prism.violations().join('\n'));
    assert.deepEqual(prism.violations(), [], 'Prism found no request breaking the contract');
  });

  it('is a real check: a request that breaks the contract is refused (422) and logged', async () => {
    const { client } = await twilioClient(
      { endpoint: prism.url },
      { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN },
      true,
    );
    // A call from an Account SID of the wrong form, with a callback that is no URL.
    await assert.rejects(
      client.api.v2010
        .accounts('not-an-account')
        .calls.create({ to: '+4915112345678', from: '+15005550006', url: 'not a url' }),
      (err: { status?: number }) => err.status === 422,
    );
    assert.ok(
      prism.violations().some((l) => /AccountSid|Url/.test(l)),
      prism.violations().join('\n'),
    );
  });
});
