import assert from 'node:assert/strict';
import type { ProviderCallContext } from '../../jobs/bridge/providers/adapter.js';
import { slackAdapter, slackClient } from '../../jobs/bridge/providers/slack.js';
import { harness } from '../support/harness.js';
import { startPrism, type PrismMock } from '../support/prism.js';
import {
  SLACK_WEB_API,
  documentOrigin,
  providerDocument,
  writeSlice,
  type Operation,
} from '../support/openapi-slice.js';

/** What the adapter calls (method, path): keep in step with jobs/bridge/providers/slack.ts. */
const SLACK_OPERATIONS: Operation[] = [
  ['post', '/chat.postMessage'],
  ['post', '/conversations.open'],
  ['post', '/users.lookupByEmail'],
];
const origin = documentOrigin(providerDocument('slack.com'));

/**
 * Every request the Slack adapter makes, sent to Prism serving Slack's published Web API document (the slice the
 * adapter uses, as Slack's API is called: SLACK_WEB_API in test/support/openapi-slice.ts) with `--errors`: a request
 * that breaks the contract is refused there (422 and a violation in Prism's log), and fails here. The flow tests make
 * the same calls against the stateful fake (test/support/slack-fake.ts).
 */
describe(`the Slack adapter's requests against Slack's OpenAPI document ${origin.version} (Prism)`, function () {
  this.timeout(300_000);
  let prism: PrismMock;
  let ctx: ProviderCallContext;
  before(async () => {
    prism = await startPrism(writeSlice('slack.com', SLACK_OPERATIONS, SLACK_WEB_API));
    ctx = {
      deps: harness.deps,
      connector: { endpoint: prism.url } as ProviderCallContext['connector'],
      secret: 'xoxb-contract-token',
      idempotencyKey: 'act_contract1',
    };
  });
  after(async () => prism?.stop());

  it('a post to a channel, to a person by id and by email, with buttons and in a thread, all pass', async () => {
    const toChannel = await slackAdapter.call('msg.chat', { channel: '#ops', text: 'the summary' }, ctx);
    assert.equal(toChannel.status, 'succeeded', JSON.stringify(toChannel));
    const byUser = await slackAdapter.call('msg.chat', { user: 'U012AB3CD', text: 'hi', buttons: ['yes', 'no'] }, ctx);
    assert.equal(byUser.status, 'succeeded', JSON.stringify(byUser));
    const byEmail = await slackAdapter.call(
      'msg.chat',
      { email: 'spengler@ghostbusters.example.com', text: 'hi', threadTs: '1700000000.000100' },
      ctx,
    );
    assert.equal(byEmail.status, 'succeeded', JSON.stringify(byEmail));
    // Prism answers Slack's example message: the reference is its channel and ts.
    assert.equal(toChannel.providerRef, 'C1H9RESGL:1503435956.000247');
    assert.deepEqual(prism.violations(), [], 'Prism found no request breaking the contract');
  });

  it('is a real check: a request breaking the contract, or one without the token, is refused and logged', async () => {
    const client = await slackClient(prism.url, 'xoxb-contract-token', true);
    await assert.rejects(
      client.apiCall('chat.postMessage', { text: 'no channel' }),
      (err: { statusCode?: number }) => err.statusCode === 422,
    );
    assert.ok(
      prism.violations().some((l) => /channel/.test(l)),
      prism.output(),
    );
    await assert.rejects(
      (await slackClient(prism.url, '', true)).apiCall('conversations.open', { users: 'U012AB3CD' }),
      (err: { statusCode?: number }) => err.statusCode === 401,
    );
  });
});
