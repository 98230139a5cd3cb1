import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mailgunSignature } from '../../jobs/bridge/providers/smtp-inbound.js';
import { providerConnector } from '../support/bridge.js';
import { harness } from '../support/harness.js';
import { daytimeOutreach } from '../support/outreach.js';
import { until } from '../support/receiver.js';
import { startSlackFake, type SlackFake } from '../support/slack-fake.js';
import { headerOf, startSmtpServer, type SmtpTestServer } from '../support/smtp-server.js';

/**
 * Missions that reach people by email and Slack (issue 31): a run's message mission goes out through the account's
 * default `msg.email` connector (SMTP to a real server in process) or `msg.chat` connector (the Slack fake), and the
 * person's reply comes back as the provider sends it (a Mailgun inbound route's signed form; a Slack thread reply or
 * button click signed with the app's signing secret) to the connector's callback route, resolves the mission and
 * resumes the run, through the real queue and workers.
 */
describe('a run reaches a person by email or Slack and resumes from the reply', function () {
  this.timeout(60_000);
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const botToken = `xoxb-${randomBytes(16).toString('hex')}`;
  const mailgunKey = `key-${randomBytes(16).toString('hex')}`;
  const slackSecret = randomBytes(16).toString('hex');
  let smtp: SmtpTestServer;
  let slack: SlackFake;

  before(async () => {
    smtp = await startSmtpServer({ users: { 'bot@mail.example.org': password } });
    slack = await startSlackFake({ token: botToken });
  });
  after(async () => {
    await smtp?.stop();
    await slack?.stop();
  });

  /** An account with one connector for the capability (so it is the default), signing secret set. */
  async function accountWith(kind: 'smtp' | 'slack') {
    const acct = await harness.account();
    const connectorId = kind === 'smtp' ? 'mail' : 'team-slack';
    if (kind === 'smtp')
      await providerConnector(
        acct.token,
        { name: 'smtp', kind: 'basic', value: { username: 'bot@mail.example.org', password } },
        { connectorId, kind: 'smtp', caps: ['msg.email'], endpoint: smtp.url, signingSecret: mailgunKey },
      );
    else
      await providerConnector(
        acct.token,
        { name: 'slack', kind: 'bearer', value: botToken },
        { connectorId, kind: 'slack', caps: ['msg.chat'], endpoint: slack.url, signingSecret: slackSecret },
      );
    return { ...acct, callbackPath: `/v1/channels/callbacks/${acct.accountId}/${connectorId}` };
  }
  type Acct = Awaited<ReturnType<typeof accountWith>>;

  const submit = (acct: Acct, request: string) =>
    harness.call('POST', '/v1/orchestrator/run', {
      token: acct.token,
      body: { request, domainRoute: ['proxy'], metadata: { outreach: daytimeOutreach() } },
    });
  const mission = async (acct: Acct, id: string) =>
    (await harness.call('GET', `/v1/proxy/missions/${id}`, { token: acct.token })).body.mission;
  const rested = (acct: Acct, runId: string) =>
    until(
      async () => (await harness.call('GET', `/v1/runs/${runId}`, { token: acct.token })).body.run,
      (r) => !['awaitingProxy', 'running', 'queued'].includes(r.status),
    );
  const providerRefOf = (acct: Acct, actionId: string) =>
    until(
      async () => (await harness.call('GET', `/v1/bridge/actions/${actionId}`, { token: acct.token })).body.action,
      (a) => Boolean(a.providerRef),
    );

  it('by email: the mail goes out by SMTP; the signed Mailgun reply resolves the mission and the run', async () => {
    const acct = await accountWith('smtp');
    const before = smtp.received.length;
    const res = await submit(
      acct,
      'email info@kiez-plumbing.example and ask whether they can fix the leak on Thursday',
    );
    assert.equal(res.body.status, 'awaitingProxy', res.text);
    const out = res.body.results.proxy;
    assert.deepEqual([out.channelMsg.channel, out.channelMsg.to], ['email', 'info@kiez-plumbing.example']);
    const action = await providerRefOf(acct, out.dispatch.channelMsg.actionId);
    const mail = (
      await until(
        () => smtp.received.slice(before),
        (m) => m.length > 0,
      )
    )[0]!;
    assert.deepEqual(mail.to, ['info@kiez-plumbing.example']);
    assert.equal(headerOf(mail.raw, 'message-id'), action.providerRef);

    const reply = (over: Record<string, string> = {}) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const token = randomBytes(25).toString('hex');
      const fields = {
        sender: 'info@kiez-plumbing.example',
        from: 'Kiez Plumbing <info@kiez-plumbing.example>',
        recipient: 'bot@mail.example.org',
        subject: 'Re: your request',
        'stripped-text': 'Yes, Thursday at 10am works, 90 EUR',
        'In-Reply-To': action.providerRef as string,
        timestamp,
        token,
        signature: mailgunSignature(mailgunKey, timestamp, token),
        ...over,
      };
      return harness.call('POST', acct.callbackPath, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        raw: new URLSearchParams(fields).toString(),
      });
    };
    const forged = await reply({ signature: 'f'.repeat(64) });
    assert.equal(forged.status, 401, forged.text);
    const answered = await reply();
    assert.equal(answered.status, 200, answered.text);
    const done = await rested(acct, res.body.runId);
    assert.equal(done.status, 'ready', JSON.stringify(done).slice(0, 600));
    const m = await mission(acct, out.proxyId);
    assert.deepEqual([m.status, m.outcome.availability.price], ['resolved', { amount: 90, currency: 'EUR' }]);
    // The reply landed on the mission's thread, beside the mail that was sent.
    const sent = await harness.call('GET', `/v1/bridge/actions/${action.actionId}`, { token: acct.token });
    const threadId = sent.body.action.refs.threadId as string;
    assert.match(threadId, /^thr_/);
    const timeline = await harness.call('GET', `/v1/channels/threads/${threadId}/timeline`, { token: acct.token });
    assert.equal(timeline.status, 200, timeline.text);
    const kinds = timeline.body.entries.map((e: { kind: string }) => e.kind).sort();
    assert.deepEqual(kinds, ['action', 'callback', 'touchpoint'], timeline.text);
  });

  it('by Slack: posted with Yes/No buttons; a thread reply resolves it; the challenge is answered', async () => {
    const acct = await accountWith('slack');
    const check = slack.urlVerification(slackSecret);
    const verified = await harness.call('POST', acct.callbackPath, { headers: check.headers, raw: check.body });
    assert.deepEqual([verified.status, verified.text], [200, check.challenge], 'url_verification answered');

    const res = await submit(acct, 'message #ops on Slack: is the projector in room 4 fixed by Friday?');
    assert.equal(res.body.status, 'awaitingProxy', res.text);
    const out = res.body.results.proxy;
    await providerRefOf(acct, out.dispatch.channelMsg.actionId);
    const posted = slack.messages.find((msg) => msg.text.includes('projector in room 4'));
    assert.ok(posted, 'posted to Slack');
    assert.ok(JSON.stringify(posted.blocks).includes('Yes'), 'with Yes/No buttons');

    const bad = slack.threadReply('0'.repeat(32), posted, 'Yes, fixed this morning');
    assert.equal((await harness.call('POST', acct.callbackPath, { headers: bad.headers, raw: bad.body })).status, 401);
    const good = slack.threadReply(slackSecret, posted, 'Yes, fixed this morning');
    const answered = await harness.call('POST', acct.callbackPath, { headers: good.headers, raw: good.body });
    assert.equal(answered.status, 200, answered.text);
    const done = await rested(acct, res.body.runId);
    assert.equal(done.status, 'ready', JSON.stringify(done).slice(0, 600));
    assert.equal((await mission(acct, out.proxyId)).status, 'resolved');
  });
});
