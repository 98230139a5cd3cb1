import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startWeb } from '../../api/server.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import type { Stoppable } from '../../shared/lifecycle.js';
import { startDelivery } from '../../workers/delivery.js';
import { startDomainWorkers } from '../../workers/domains.js';
import { providerConnector } from '../support/bridge.js';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';
import { until } from '../support/receiver.js';
import { startSlackFake, type SlackFake } from '../support/slack-fake.js';
import { startSmtpSink } from '../support/smtp-sink.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const KIEZ = 'call Kiez Plumbing at +49 30 5550123 and confirm they can fix the leak tomorrow';
const BASE = 'https://awp.example.org';

/**
 * The inbox end to end, on a stack of its own (its web, domain workers and delivery process on the same Postgres and
 * Redis, under its own queue prefix, with SMTP_URL at the SMTP sink): a run waits for an approval, a second member
 * approves it from the inbox and the run finishes; a mission answered from the inbox with a file resolves the mission
 * and its run; the people it waited for were told by mail and Slack, once each.
 */
describe('inbox flow: approval and mission answered from the inbox, notifications by mail and Slack', function () {
  this.timeout(90_000);
  const botToken = `xoxb-${randomBytes(16).toString('hex')}`;
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let slack: SlackFake;
  let deps: Deps;
  let url: string;
  const parts: Stoppable[] = [];
  let a: { token: string; accountId: string };
  let approver: { memberId: string; token: string };
  let approverEmail: string;
  const call = (method: string, path: string, token: string, body?: unknown) =>
    harness.call(method, path, { token, ...(body === undefined ? {} : { body }) }, url);
  const runOf = (runId: string) =>
    until(
      async () => (await call('GET', `/v1/runs/${runId}`, a.token)).body.run,
      (r) => Boolean(r.finishedAt) && Boolean(r.result),
      30_000,
    );
  const mailsTo = (to: string) => sink.messages.filter((m) => new RegExp(`^To: ${to}$`, 'mi').test(m));

  before(async () => {
    sink = await startSmtpSink();
    slack = await startSlackFake({ token: botToken });
    const config = harness.configWith({
      SMTP_URL: `${sink.url}?ignoreTLS=true`,
      PUBLIC_BASE_URL: BASE,
      QUEUE_PREFIX: `{awp-inbox-${randomBytes(3).toString('hex')}}`,
    });
    deps = createDeps(config, createLogger('silent'));
    parts.push(...startDomainWorkers(deps), ...startDelivery(deps));
    const web = await startWeb(deps, 0, '127.0.0.1');
    parts.push(web);
    url = web.url;
    a = await harness.account();
    approver = await member(a.accountId, 'approver');
    approverEmail = (await harness.deps.db('members').where({ id: approver.memberId }).first('email')).email;
    slack.users.set(approverEmail, 'U0APPROVER');
    const owner = (await harness.deps.db('members').where({ account_id: a.accountId, role: 'owner' }).first()).email;
    slack.users.set(owner, 'U0OWNER');
    await providerConnector(
      a.token,
      { name: 'slack-bot', kind: 'bearer', value: botToken },
      { connectorId: 'team-slack', kind: 'slack', caps: ['msg.chat'], endpoint: slack.url },
      url,
    );
  });
  after(async () => {
    for (const part of parts.reverse()) await part.stop().catch(() => undefined);
    await deps?.close();
    await sink?.stop();
    await slack?.stop();
  });

  it('an approval in the inbox with its plan: assigned, refused to the submitter, the assignee approves', async () => {
    const res = await call('POST', '/v1/delivery/run', a.token, {
      service: 'web',
      environment: 'prod',
      version: '3.1.0',
      artifacts: green,
    });
    assert.equal(res.body.status, 'awaitingApproval', res.text);
    const runId = res.body.runId as string;
    const listed = await call('GET', '/v1/inbox?kind=approval', a.token);
    const itemId = listed.body.items.find((i: any) => i.runId === runId).itemId as string;
    const item = (await call('GET', `/v1/inbox/${itemId}`, a.token)).body.item;
    assert.deepEqual([item.approval.plan.route.at(-1), item.approval.plan.remaining], ['delivery', ['delivery']]);
    assert.deepEqual(
      item.answerSchema.oneOf.map((b: any) => b.properties.action.const),
      ['approve', 'reject'],
    );

    // Told once each, by mail and by Slack, with the link to the item.
    const link = `${BASE}/dashboard/#/inbox/${itemId}`;
    await until(
      async () => mailsTo(approverEmail),
      (m) => m.length >= 1,
      20_000,
    );
    await until(
      async () => slack.messages.filter((m) => m.channel === 'D0APPROVER'),
      (m) => m.length >= 1,
      20_000,
    );
    const assigned = await call('POST', `/v1/inbox/${itemId}/assign`, a.token, { memberId: approver.memberId });
    assert.equal(assigned.status, 200, assigned.text);
    const refused = await call('POST', `/v1/inbox/${itemId}/answer`, a.token, { action: 'approve' });
    assert.deepEqual([refused.status, refused.body.error], [409, 'selfApproval'], refused.text);
    const approved = await call('POST', `/v1/inbox/${itemId}/answer`, approver.token, { action: 'approve' });
    assert.equal(approved.status, 200, approved.text);
    const run = await runOf(runId);
    // Approved, the deploy goes on; with no CI connector in this account it is a dry run (never `delivered`).
    assert.equal(run.status, 'dryRun', JSON.stringify(run.result));

    const mails = mailsTo(approverEmail);
    assert.equal(mails.length, 1, 'one mail to the approver');
    assert.ok(mails[0]!.replace(/=\r?\n/g, '').includes(link), mails[0]);
    const dms = slack.messages.filter((m) => m.channel === 'D0APPROVER');
    assert.equal(dms.length, 1, 'one Slack message to the approver');
    assert.ok(dms[0]!.text.includes(link), dms[0]!.text);
    const rows = await harness.deps.db('inbox_notifications').where({ account_id: a.accountId, item_id: itemId });
    assert.deepEqual(
      rows
        .map((r: any) => `${r.member_id === approver.memberId ? 'approver' : 'owner'}:${r.channel}:${r.status}`)
        .sort(),
      ['approver:chat:sent', 'approver:email:sent', 'owner:chat:sent', 'owner:email:sent'],
    );
  });

  it('a mission answered from the inbox with a file proof item resolves the mission and the run', async () => {
    const res = await call('POST', '/v1/orchestrator/run', a.token, { request: KIEZ, consentToCall: true });
    assert.equal(res.body.status, 'awaitingProxy', res.text);
    const runId = res.body.runId as string;
    const proxyId = res.body.results.proxy.proxyId as string;
    const item = (await call('GET', `/v1/inbox/${proxyId}`, a.token)).body.item;
    assert.deepEqual([item.kind, item.runId, item.mission.proofReq], ['mission', runId, ['callSummary']]);
    const bytes = Buffer.from('%PDF-1.4\n% call summary: they come tomorrow at 9\n%%EOF\n');
    const sha256 = (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
    const wrongType = await call('POST', `/v1/inbox/${proxyId}/answer`, a.token, {
      action: 'proxyOutcome',
      data: {
        outcome: {
          status: 'confirmedSuccess',
          proof: {
            callSummary: { file: { name: 's.png', contentType: 'image/png', contentBase64: bytes.toString('base64') } },
          },
        },
      },
    });
    assert.equal(wrongType.status, 400, 'the bytes are a PDF, not a PNG');
    const missing = await call('POST', `/v1/inbox/${proxyId}/answer`, a.token, {
      action: 'proxyOutcome',
      data: { outcome: { status: 'confirmedSuccess' } },
    });
    assert.equal(missing.status, 400, 'a success carries its required proof items');
    const answered = await call('POST', `/v1/inbox/${proxyId}/answer`, a.token, {
      action: 'proxyOutcome',
      data: {
        outcome: {
          status: 'confirmedSuccess',
          note: 'They come tomorrow at 9',
          availability: { providerName: 'Kiez Plumbing' },
          proof: {
            callSummary: {
              file: { name: 'summary.pdf', contentType: 'application/pdf', contentBase64: bytes.toString('base64') },
            },
          },
        },
      },
    });
    assert.equal(answered.status, 200, answered.text);
    assert.deepEqual([answered.body.missionStatus, answered.body.files[0].sha256], ['resolved', sha256]);
    const run = await runOf(runId);
    assert.equal(run.status, 'ready', JSON.stringify(run.result));
    const mission = (await call('GET', `/v1/proxy/missions/${proxyId}`, a.token)).body.mission;
    assert.deepEqual(mission.proof.callSummary.file.sha256, sha256);
    const file = await fetch(`${url}/v1/inbox/${proxyId}/files/${sha256}`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'application/pdf');
    assert.equal(file.headers.get('x-content-sha256'), sha256);
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), bytes);
    const other = await harness.account();
    const foreign = await call('GET', `/v1/inbox/${proxyId}/files/${sha256}`, other.token);
    assert.equal(foreign.status, 404, 'same account only');
  });
});
