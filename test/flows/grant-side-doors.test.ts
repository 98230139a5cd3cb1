import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { addMember, receiptsOf, tokenWith } from '../support/grants.js';
import { harness } from '../support/harness.js';
import { daytimeOutreach } from '../support/outreach.js';
import { grant, newTask } from '../support/pay.js';
import { startReceiver, until } from '../support/receiver.js';
import { pollUntilRest } from '../support/runs.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };

/**
 * Issue 26, item 7: each side door past a token's grant. A direct route
 * refuses a narrowed token; the same effect reached through a run, a tool or
 * a mission is refused too (naming the missing scope, with no effect), and
 * goes through for a token that holds the scope.
 */
describe('a run, a tool and a mission act within the grant of the token behind them', function () {
  this.timeout(60_000);
  const secret = newWebhookSecret();
  let provider: Awaited<ReturnType<typeof startReceiver>>;
  let owner: { token: string; accountId: string };
  let connectorId: string;
  before(async () => {
    provider = await startReceiver(() => [secret]);
    owner = await harness.account();
    const value = `g-${randomBytes(12).toString('hex')}`;
    const stored = await harness.call('POST', '/v1/bridge/credentials', {
      token: owner.token,
      body: { name: 'grant-token', kind: 'bearer', value },
    });
    assert.equal(stored.status, 201, stored.text);
    connectorId = `any-${randomBytes(3).toString('hex')}`;
    const made = await harness.call('POST', '/v1/bridge/connectors', {
      token: owner.token,
      body: {
        connectorId,
        kind: 'custom',
        caps: ['ci.trigger', 'sms.send'],
        endpoint: provider.url,
        signingSecret: secret,
        credential: { type: 'bearer', tokenRef: 'cred:grant-token' },
      },
    });
    assert.equal(made.status, 201, made.text);
  });
  after(async () => {
    await provider.stop();
  });
  const run = (token: string, body: object) => harness.call('POST', '/v1/orchestrator/run', { token, body });
  const approve = (runId: string) =>
    harness.call('POST', `/v1/runs/${runId}/resume`, { token: owner.token, body: { approved: true } });
  const scoped = (scopes: string[]) => tokenWith(owner.accountId, scopes);

  it('a runs:write token cannot settle through domainRoute ["pay"]: the step fails naming pay:write', async () => {
    const m = await grant(owner.token, await newTask(owner.token), { maxSpend: { amount: 400, currency: 'USD' } });
    const metadata = { mandateId: m.mandateId, payment: { vendorId: 'Sparks Ltd', amount: 30 } };
    const body = { request: 'pay the electrician', domainRoute: ['pay'], metadata };
    const direct = await harness.call('POST', '/v1/pay/settle', { token: await scoped(['runs:write']), body: {} });
    assert.equal(direct.status, 403, 'the direct route refuses it');
    const refused = await run(await scoped(['runs:write', 'runs:read']), body);
    assert.equal(refused.status, 200, refused.text);
    assert.equal(refused.body.status, 'failed');
    assert.match(refused.body.error, /pay step failed: settling a payment needs scope pay:write/);
    assert.equal(await receiptsOf(refused.body.runId), 0);
    const denied = await harness.deps.db('audit_log').where({ resource_id: refused.body.runId, action: 'run.effect' });
    assert.deepEqual(
      denied.map((d) => [d.outcome, d.details.effect]),
      [['denied', 'pay.settle']],
    );
    const paid = await run(await scoped(['runs:write', 'runs:read', 'pay:write']), body);
    assert.deepEqual([paid.body.status, paid.body.results.pay.paid], ['ready', true], paid.text);
    assert.equal(await receiptsOf(paid.body.runId), 1);
  });

  it('a run of a member demoted since it was submitted acts within the role the member has now', async () => {
    const dev = await addMember(owner.accountId, 'developer');
    const token = await tokenWith(owner.accountId, ['runs:write', 'runs:read', 'pay:write'], dev);
    // The run rests at its task's missing mandate first, so the demotion lands between submission and settlement.
    const taskId = await newTask(owner.token);
    const metadata = { payment: { vendorId: 'P', amount: 5 } };
    const body = { request: 'pay the plumber', domainRoute: ['pay'], taskId, metadata };
    const resting = await run(token, body);
    assert.equal(resting.body.status, 'awaitingApproval', resting.text);
    await harness.deps.db('members').where({ id: dev }).update({ role: 'viewer' });
    await grant(owner.token, taskId);
    const resumed = await approve(resting.body.runId);
    assert.equal(resumed.status, 202, resumed.text);
    const done = await pollUntilRest(owner.token, resting.body.runId);
    assert.equal(done.status, 'failed');
    assert.match(done.error, /pay:write.*role viewer/);
    assert.equal(await receiptsOf(resting.body.runId), 0);
  });

  it('a run from before grants were recorded (null grant_scopes) reaches no effect, and says to resubmit', async () => {
    const taskId = await newTask(owner.token);
    const metadata = { payment: { vendorId: 'Green', amount: 5 } };
    const resting = await run(owner.token, { request: 'pay the gardener', domainRoute: ['pay'], taskId, metadata });
    assert.equal(resting.body.status, 'awaitingApproval', resting.text);
    await harness.deps.db('runs').where({ id: resting.body.runId }).update({ grant_scopes: null, submitted_by: null });
    await grant(owner.token, taskId);
    assert.equal((await approve(resting.body.runId)).status, 202);
    const done = await pollUntilRest(owner.token, resting.body.runId);
    assert.equal(done.status, 'failed');
    assert.match(done.error, /pay:write, which run run_\w+, submitted before grants were recorded \(resubmit it\)/);
    assert.equal(await receiptsOf(resting.body.runId), 0);
  });

  it('runs:write cannot deploy live via domainRoute ["cicd", "delivery"]; delivery+bridge:write can', async () => {
    const metadata = { service: 'api', environment: 'staging', version: '4.0.0', artifacts: green };
    const body = { request: 'deliver api 4.0.0 to staging', domainRoute: ['cicd', 'delivery'], metadata };
    const before = provider.received.length;
    const direct = await harness.call('POST', '/v1/delivery/run', { token: await scoped(['runs:write']), body: {} });
    assert.equal(direct.status, 403);
    const refused = await run(await scoped(['runs:write', 'runs:read']), body);
    assert.equal(refused.body.status, 'failed', refused.text);
    assert.match(refused.body.error, /CI connector needs scopes delivery:write, bridge:write/);
    const actions = await harness.deps.db('bridge_actions').where({ id: `bac_${refused.body.runId.slice(4)}` });
    assert.equal(actions.length, 0, 'no action was written');
    assert.equal(provider.received.length, before, 'nothing reached the CI');
    const ok = await run(await scoped(['runs:write', 'runs:read', 'delivery:write', 'bridge:write']), body);
    assert.equal(ok.body.status, 'delivered', ok.text);
    const deploy = ok.body.results.delivery.stages.find((s: any) => s.name === 'deploy');
    assert.match(deploy.findings[0], /bridge action bac_/);
  });

  it("a proxy token cannot send via a connector in a mission's channelMsg; with bridge:write it can", async () => {
    const task = await harness.call('POST', '/v1/tasks', { token: owner.token, body: { domain: 'proxy', inData: {} } });
    const taskId = task.body.task.taskId;
    const mission = {
      taskId,
      kind: 'message',
      reason: 'localServiceAvailability',
      task: 'Ask whether Monday works',
      channelMsg: {
        channel: 'sms',
        to: '+49305550123',
        text: 'Does Monday work?',
        connectorId,
        outreach: { ...daytimeOutreach(), lawfulBasis: 'legitimateInterest' },
      },
    };
    const proxyOnly = await scoped(['proxy:read', 'proxy:write']);
    const action = { connectorId, capability: 'sms.send' };
    const direct = await harness.call('POST', '/v1/bridge/actions', { token: proxyOnly, body: action });
    assert.equal(direct.status, 403);
    const refused = await harness.call('POST', '/v1/proxy/missions', { token: proxyOnly, body: mission });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.message, /a connector call needs scope bridge:write, which this token lacks/);
    assert.deepEqual(refused.body.details.missingScopes, ['bridge:write']);
    const missions = await harness.deps.db('proxy_missions').where({ task_id: taskId });
    assert.equal(missions.length, 0, 'no mission was written');
    const token = await scoped(['proxy:write', 'bridge:write']);
    const sent = await harness.call('POST', '/v1/proxy/missions', { token, body: mission });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.mission.dispatch.channelMsg.status, 'queued');
  });

  describe('portalBrowser (tools:use) runs a portal action only with the bridge scope, over HTTP and MCP', () => {
    let actionId: () => Promise<string>;
    before(async () => {
      const session = await harness.call('POST', '/v1/bridge/portal/sessions', {
        token: owner.token,
        body: {
          targetOrigin: 'https://portal.example.com',
          credentials: { usernameRef: 'cred:grant-token', passwordRef: 'cred:grant-unset' },
        },
      });
      assert.equal(session.status, 201, session.text);
      actionId = async () => {
        const body = { portalSessionId: session.body.session.portalSessionId, templateId: 'download-latest-invoice' };
        const made = await harness.call('POST', '/v1/bridge/portal/actions', { token: owner.token, body });
        assert.equal(made.status, 201, made.text);
        return made.body.action.portalActionId;
      };
    });
    const status = async (id: string) =>
      (await harness.call('GET', `/v1/bridge/portal/actions/${id}`, { token: owner.token })).body.action.status;
    /** The worker settles a queued run: followed with GET until it rests. */
    const atRest = (id: string) =>
      until(
        () => harness.call('GET', `/v1/bridge/portal/actions/${id}`, { token: owner.token }),
        (r) => ['succeeded', 'failed', 'blocked'].includes(r.body.action.status),
      );
    const browse = async (scopes: string[], id: string) =>
      harness.call('POST', '/v1/tools/portalBrowser', { token: await scoped(scopes), body: { portalActionId: id } });

    it('over HTTP: 403 naming bridge:write for tools:use alone; with bridge:write it runs (fails closed)', async () => {
      const id = await actionId();
      const refused = await browse(['tools:use'], id);
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.body.message, /bridge:write/);
      assert.equal(await status(id), 'queued', 'nothing ran');
      const ran = await browse(['tools:use', 'bridge:write'], id);
      assert.equal(ran.status, 202, ran.text);
      assert.equal(ran.body.action.status, 'queued');
      const { action } = (await atRest(id)).body;
      assert.deepEqual([action.status, action.blocked.reason], ['blocked', 'preflight.credentialsMissing']);
    });

    it('over MCP: not offered to tools:use alone, a call errs naming bridge:write; with it, it runs', async () => {
      const connect = async (token: string) => {
        const client = new Client({ name: 'grant-test', version: '1.0.0' });
        const requestInit = { headers: { Authorization: `Bearer ${token}` } };
        await client.connect(new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`), { requestInit }));
        return client;
      };
      const id = await actionId();
      const narrow = await connect(await scoped(['tools:use']));
      try {
        assert.ok(!(await narrow.listTools()).tools.some((t) => t.name === 'bridge.portalBrowser'));
        const refused = await narrow.callTool({ name: 'bridge.portalBrowser', arguments: { portalActionId: id } });
        assert.equal(refused.isError, true);
        assert.equal((refused.structuredContent as any).error, 'forbidden');
        assert.match((refused.structuredContent as any).message, /bridge:write/);
        assert.equal(await status(id), 'queued', 'nothing ran');
      } finally {
        await narrow.close();
      }
      const wide = await connect(await scoped(['tools:use', 'bridge:write']));
      try {
        const ran = await wide.callTool({ name: 'bridge.portalBrowser', arguments: { portalActionId: id } });
        assert.ok(!ran.isError, JSON.stringify(ran.structuredContent));
        assert.equal((ran.structuredContent as any).action.status, 'queued');
        assert.equal((await atRest(id)).body.action.status, 'blocked');
      } finally {
        await wide.close();
      }
    });
  });
});
