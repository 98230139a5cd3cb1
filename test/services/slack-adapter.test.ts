import assert from 'node:assert/strict';
import type { ProviderCallContext } from '../../jobs/bridge/providers/adapter.js';
import { slackAdapter } from '../../jobs/bridge/providers/slack.js';
import { harness } from '../support/harness.js';
import { startSlackFake, type SlackFake } from '../support/slack-fake.js';

/**
 * The Slack adapter through the official WebClient against the stateful fake (test/support/slack-fake.ts): where a
 * message goes, what the bot token is, and how Slack's refusals and rate limits come back as the service's answers.
 * The same requests are checked against Slack's OpenAPI document in slack-contract.test.ts.
 */
describe('the Slack adapter (@slack/web-api)', function () {
  this.timeout(30_000);
  const token = 'xoxb-' + 'T3st9'.repeat(6);
  let slack: SlackFake;
  let ctx: ProviderCallContext;
  before(async () => {
    slack = await startSlackFake({ token });
    ctx = {
      deps: harness.deps,
      connector: { endpoint: slack.url } as ProviderCallContext['connector'],
      secret: token,
      idempotencyKey: 'act_slack1',
    };
  });
  after(() => slack.stop());
  const chat = (input: Record<string, unknown>, c = ctx) => slackAdapter.call('msg.chat', input, c);

  it('posts to a channel by name: the reference is channel:ts, the bot token sent as a bearer', async () => {
    const out = await chat({ channel: '#ops', text: 'the incident summary' });
    assert.equal(out.status, 'succeeded', JSON.stringify(out));
    const posted = slack.messages.at(-1)!;
    assert.deepEqual([posted.channel, posted.text, posted.threadTs], ['C0OPS', 'the incident summary', null]);
    assert.equal(out.providerRef, `C0OPS:${posted.ts}`);
    assert.equal(slack.requests.at(-1)!.authorization, `Bearer ${token}`);
    assert.ok(!JSON.stringify(out).includes(token));
  });

  it('to a person: by user id (a DM opened), by email (looked up first); buttons and a thread', async () => {
    const byId = await chat({ user: 'U0OLGA', text: 'Can you take it?', buttons: ['yes', 'no'] });
    assert.equal(byId.providerRef, `D0OLGA:${slack.messages.at(-1)!.ts}`);
    const blocks = slack.messages.at(-1)!.blocks as any[];
    assert.deepEqual(
      blocks[1].elements.map((e: any) => [e.type, e.value]),
      [
        ['button', 'yes'],
        ['button', 'no'],
      ],
    );
    const thread = slack.messages.at(-1)!.ts;
    const before = slack.requests.length;
    const byEmail = await chat({ email: 'olga@example.com', text: 'ping', threadTs: thread });
    assert.equal(byEmail.status, 'succeeded');
    assert.deepEqual(
      slack.requests.slice(before).map((r) => r.method),
      ['users.lookupByEmail', 'conversations.open', 'chat.postMessage'],
    );
    assert.equal(slack.messages.at(-1)!.threadTs, thread);
  });

  it("Slack's ok:false codes are mapped: final for a wrong channel, a missing membership, a bad token", async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp, ProviderCallContext?]> = [
      [{ channel: '#nowhere', text: 'x' }, 'channel_not_found', /no channel by that name/],
      [{ channel: '#quiet', text: 'x' }, 'not_in_channel', /invite it/],
      [{ email: 'who@example.com', text: 'x' }, 'users_not_found', /no Slack user has that email/],
      [
        { channel: '#ops', text: 'x' },
        'invalid_auth',
        /refused the connector's bot token/,
        { ...ctx, secret: 'xoxb-no' },
      ],
    ];
    for (const [input, code, message, c] of cases) {
      const out = await chat(input, c);
      assert.deepEqual([out.status, out.error?.code, out.error?.transient], ['failed', code, false], code);
      assert.match(out.error!.message, message);
    }
  });

  it('a 429 is transient with its Retry-After; ratelimited, a 500 and internal_error are transient too', async () => {
    slack.failNext({ status: 429, retryAfterSec: 7 });
    const limited = await chat({ channel: '#ops', text: 'x' });
    assert.deepEqual(
      [limited.error?.code, limited.error?.transient, limited.error?.retryAfterMs],
      ['ratelimited', true, 7000],
    );
    slack.failNext({ error: 'ratelimited' }, { status: 500 }, { error: 'internal_error' });
    for (const code of ['ratelimited', 'slackUnavailable', 'internal_error']) {
      const out = await chat({ channel: '#ops', text: 'x' });
      assert.deepEqual([out.error?.code, out.error?.transient], [code, true]);
    }
    const dead = await chat(
      { channel: '#ops', text: 'x' },
      {
        ...ctx,
        connector: { endpoint: 'http://127.0.0.1:1/api' } as ProviderCallContext['connector'],
      },
    );
    assert.deepEqual([dead.error?.code, dead.error?.transient], ['connection', true]);
  });

  it('input it cannot post fails without a call, permanently', async () => {
    const before = slack.requests.length;
    for (const input of [
      { text: 'no target' },
      { channel: '#ops', user: 'U0OLGA', text: 'two targets' },
      { channel: '#ops' },
      { user: 'olga', text: 'not an id' },
      { channel: '#ops', text: 'x', buttons: ['a', 'b', 'c', 'd', 'e', 'f'] },
      { channel: '#ops', text: 'x', threadTs: 'yesterday' },
    ]) {
      const out = await chat(input);
      assert.deepEqual([out.status, out.error?.code, out.error?.transient], ['failed', 'invalidInput', false]);
    }
    assert.equal(slack.requests.length, before);
  });
});
