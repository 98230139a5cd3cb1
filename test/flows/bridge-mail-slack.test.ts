import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { providerConnector } from '../support/bridge.js';
import { harness, type ApiResponse } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { startSlackFake, type SlackFake } from '../support/slack-fake.js';
import { headerOf, startSmtpServer, type SmtpTestServer } from '../support/smtp-server.js';

/**
 * Email and Slack through the bridge, end to end with the real adapters (issue 31): HTTP (a bridge action, or a run
 * routed to bridge by its words) → the bridge-actions queue → the worker → the SMTP adapter speaking SMTP to a real
 * server in process, or the Slack adapter's WebClient to the Slack fake → the action's status, reference and proof.
 */
describe('bridge actions by email (SMTP) and Slack, through the real adapters', function () {
  this.timeout(60_000);
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const botToken = `xoxb-${randomBytes(16).toString('hex')}`;
  let smtp: SmtpTestServer;
  let slack: SlackFake;
  let a: { token: string };
  const responses: ApiResponse[] = [];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await harness.call(method, path, { token: a.token, ...(body === undefined ? {} : { body }) });
    responses.push(res);
    return res;
  };
  const settled = async (id: string) =>
    (
      await until(
        () => call('GET', `/v1/bridge/actions/${id}`),
        (r) => ['succeeded', 'failed', 'timedOut'].includes(r.body.action?.status),
      )
    ).body.action;
  const finished = (runId: string) =>
    until(
      async () => (await call('GET', `/v1/runs/${runId}`)).body.run,
      (r) => ['ready', 'failed', 'canceled', 'expired'].includes(r.status) && Boolean(r.result),
      30_000,
    );
  const act = async (connectorId: string, capability: string, input: Record<string, unknown>) => {
    const made = await call('POST', '/v1/bridge/actions', { connectorId, capability, input });
    assert.equal(made.status, 201, made.text);
    return made.body.action;
  };
  const noSecretAnswered = () =>
    assert.ok(!responses.some((r) => r.text.includes(password) || r.text.includes(botToken)), 'no secret answered');

  before(async () => {
    smtp = await startSmtpServer({ users: { 'bot@mail.example.org': password } });
    slack = await startSlackFake({ token: botToken });
    a = await harness.account();
    const smtpLogin = { username: 'bot@mail.example.org', password };
    responses.push(
      ...(await providerConnector(
        a.token,
        { name: 'smtp-login', kind: 'basic', value: smtpLogin },
        { connectorId: 'mail', kind: 'smtp', caps: ['msg.email'], endpoint: smtp.url },
      )),
      ...(await providerConnector(
        a.token,
        { name: 'slack-bot', kind: 'bearer', value: botToken },
        { connectorId: 'team-slack', kind: 'slack', caps: ['msg.chat'], endpoint: slack.url },
      )),
    );
  });
  after(async () => {
    await smtp?.stop();
    await slack?.stop();
  });

  it('a bridge action by email goes out by SMTP: succeeded, its Message-ID the reference', async () => {
    const before = smtp.received.length;
    const action = await act('mail', 'msg.email', {
      to: 'ops@example.com',
      subject: 'The summary',
      text: 'All green.',
      outreach: { lawfulBasis: 'legitimateInterest', purpose: 'operations' },
    });
    const done = await settled(action.actionId);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.equal(done.providerRef, `<${action.actionId}@mail.example.org>`);
    const got = smtp.received.slice(before);
    assert.equal(got.length, 1);
    assert.deepEqual([got[0]!.user, got[0]!.to], ['bot@mail.example.org', ['ops@example.com']]);
    assert.equal(headerOf(got[0]!.raw, 'Message-ID'), done.providerRef);
    assert.equal(done.request.adapter, 'smtp');
    assert.match(done.proof.requestSha256, /^[0-9a-f]{64}$/);
    noSecretAnswered();
  });

  it('a run routed by its words: "email the summary to ops@example.com" is sent by SMTP', async () => {
    const before = smtp.received.length;
    const res = await call('POST', '/v1/orchestrator/run', {
      request: 'email the summary to ops@example.com',
      metadata: { outreach: { lawfulBasis: 'legitimateInterest', purpose: 'operations' } },
    });
    assert.equal(res.status, 200, res.text);
    const run = await finished(res.body.runId);
    const out = run.result.results.bridge;
    assert.deepEqual(
      [run.status, out.status, out.capability, out.connectorId],
      ['ready', 'succeeded', 'msg.email', 'mail'],
      JSON.stringify(run.result),
    );
    assert.equal(out.providerRef, `<${out.actionId}@mail.example.org>`);
    const mail = smtp.received.slice(before);
    assert.equal(mail.length, 1);
    assert.equal(headerOf(mail[0]!.raw, 'Subject'), 'The summary');
    assert.match(mail[0]!.raw, /the summary/);
  });

  it('a run routed by its words: "post the summary to #ops" is posted by the Slack adapter', async () => {
    const before = slack.messages.length;
    const res = await call('POST', '/v1/orchestrator/run', { request: 'post the summary to #ops' });
    assert.equal(res.status, 200, res.text);
    const run = await finished(res.body.runId);
    const out = run.result.results.bridge;
    const posted = slack.messages.slice(before);
    assert.equal(posted.length, 1, JSON.stringify(run.result));
    assert.deepEqual([posted[0]!.channel, posted[0]!.text], ['C0OPS', 'the summary']);
    assert.deepEqual(
      [run.status, out.status, out.capability, out.connectorId, out.providerRef],
      ['ready', 'succeeded', 'msg.chat', 'team-slack', `C0OPS:${posted[0]!.ts}`],
    );
    assert.equal(slack.requests.at(-1)!.authorization, `Bearer ${botToken}`);
    noSecretAnswered();
  });

  it('a mailbox the server refuses (550) fails at once with the code, not retried', async () => {
    smtp.refuseRecipient('gone@example.com', { code: 550, message: '5.1.1 User unknown' });
    const action = await act('mail', 'msg.email', {
      to: 'gone@example.com',
      subject: 's',
      text: 't',
      outreach: { lawfulBasis: 'legitimateInterest', purpose: 'operations' },
    });
    const done = await settled(action.actionId);
    assert.deepEqual(
      [done.status, done.attempts, done.error.code, done.error.provider, done.error.transient],
      ['failed', 1, '550', 'smtp', false],
    );
    assert.match(done.error.message, /mailbox is unavailable.*5\.1\.1 User unknown/);
    noSecretAnswered();
  });

  it("Slack's 429 is retried no sooner than its Retry-After, then posted once", async () => {
    const before = slack.messages.length;
    slack.failNext({ status: 429, retryAfterSec: 1 });
    const action = await act('team-slack', 'msg.chat', { channel: '#ops', text: 'after the limit' });
    const done = await settled(action.actionId);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.equal(done.attempts, 2);
    assert.deepEqual(
      done.history.map((m: any) => m.to),
      ['queued', 'running', 'retrying', 'running', 'succeeded'],
    );
    const at = (i: number) => Date.parse(done.history[i].at);
    assert.ok(at(3) - at(2) >= 900, `the retry came ${at(3) - at(2)} ms after the 429, before its Retry-After`);
    const posted = slack.messages.slice(before);
    assert.equal(posted.length, 1, 'posted once');
    assert.equal(done.providerRef, `C0OPS:${posted[0]!.ts}`);
  });
});
