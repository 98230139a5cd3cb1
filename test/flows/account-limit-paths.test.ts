import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fireDueSchedules } from '../../jobs/schedules/firing.js';
import { registerStepHandler } from '../../jobs/steps.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { pollUntilRest } from '../support/runs.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const target = { request: { request: 'audit the vendor', domainRoute: ['resolve'] } };

/**
 * The account's limit holds on every path that creates runs, not only POST /v1/orchestrator/run: MCP and A2A
 * submissions answer as HTTP would (429 with Retry-After; an MCP tool result carries the same envelope), and a signal
 * match or a schedule firing that meets the limit is recorded `refused` with the reason, never lost, never a run.
 * The app allows one run in flight and none held; the account's one run waits in its step until the test lets it go.
 */
describe('the account limit on every path that creates runs', function () {
  this.timeout(60_000);
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  let unregister: () => void;
  let release: (() => void) | undefined;
  let account: { accountId: string; token: string };
  const runCount = async () =>
    Number((await harness.deps.db('runs').where({ account_id: account.accountId }).count({ n: '*' }).first())!.n);

  before(async () => {
    app = await startExtraApp({ ACCOUNT_RUNS_IN_FLIGHT_TEAM: '1', ACCOUNT_RUNS_HELD_MAX: '0' });
    account = await harness.account();
    unregister = registerStepHandler('resolve', async (input) => {
      if (input.accountId === account.accountId && !release)
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      return { output: { audited: true }, evidence: [], conversation: ['audited'] };
    });
    const first = await harness.call(
      'POST',
      '/v1/orchestrator/run',
      { token: account.token, headers: { prefer: 'respond-async' }, body: target.request },
      app.url,
    );
    assert.equal(first.status, 202, first.text);
    await until(() => release, Boolean);
  });

  after(async () => {
    release?.();
    unregister();
    await app.stop();
  });

  it('POST /v1/orchestrator/run: 429 with Retry-After, nothing written', async () => {
    const refused = await harness.call(
      'POST',
      '/v1/orchestrator/run',
      { token: account.token, headers: { prefer: 'respond-async' }, body: target.request },
      app.url,
    );
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.details.reason, 'accountHold');
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(await runCount(), 1);
  });

  it('MCP tools/call orchestrator.run: a tool error with the 429 envelope and its retryAfterSeconds', async () => {
    const res = await harness.call(
      'POST',
      '/mcp',
      {
        token: account.token,
        headers: MCP_HEADERS,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'orchestrator.run', arguments: target.request },
        },
      },
      app.url,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.result.isError, true);
    assert.equal(res.body.result.structuredContent.error, 'rateLimitExceeded');
    assert.equal(res.body.result.structuredContent.details.reason, 'accountHold');
    assert.ok(res.body.result.structuredContent.details.retryAfterSeconds >= 1);
    assert.equal(await runCount(), 1);
  });

  it('A2A message/send: HTTP 429 with Retry-After, as over HTTP', async () => {
    const res = await harness.call(
      'POST',
      '/a2a',
      {
        token: account.token,
        headers: { 'a2a-version': '0.3' },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: randomUUID(),
              role: 'user',
              parts: [
                { kind: 'text', text: 'audit the vendor' },
                { kind: 'data', data: { domainRoute: ['resolve'] } },
              ],
            },
          },
        },
      },
      app.url,
    );
    assert.equal(res.status, 429, res.text);
    assert.equal(res.body.error, 'rateLimitExceeded');
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(await runCount(), 1);
  });

  it('a signal matching a rule: the match is recorded refused, with the reason, and its event says so', async () => {
    const type = `limit.${randomUUID()}`;
    const rule = await harness.call('POST', '/v1/signals/rules', {
      token: account.token,
      body: { name: 'r', signalType: type, target },
    });
    assert.equal(rule.status, 201, rule.text);
    const signal = await harness.call(
      'POST',
      '/v1/signals',
      { token: account.token, body: { type, subject: 'svc', source: 'monitor', sourceId: randomUUID() } },
      app.url,
    );
    assert.equal(signal.status, 201, signal.text);
    const [match] = signal.body.matches;
    assert.deepEqual([match.outcome, match.runId], ['refused', null]);
    assert.match(match.reason, /already holds 0 runs waiting for one of its 1 places in flight/);
    const event = await harness.deps
      .db('events')
      .where({ account_id: account.accountId, type: 'signal.matched' })
      .whereRaw(`payload->>'matchId' = ?`, [match.matchId])
      .first();
    assert.equal(event.payload.outcome, 'refused');
    assert.equal(await runCount(), 1);
  });

  it('a schedule firing: recorded refused, with the reason, and its schedule.fired event says so', async () => {
    const created = await harness.call('POST', '/v1/schedules', {
      token: account.token,
      body: { cron: '0 9 * * *', timezone: 'UTC', target, overlap: 'allow' },
    });
    assert.equal(created.status, 201, created.text);
    const scheduleId = created.body.schedule.scheduleId;
    // Other files' schedules are paused, so this clock tick fires this schedule alone, at an instant the test picks.
    await harness.deps
      .db('schedules')
      .where({ status: 'active' })
      .whereNot({ id: scheduleId })
      .update({ status: 'paused' });
    const due = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    await harness.deps.db('schedules').where({ id: scheduleId }).update({ next_fire_at: due });
    assert.deepEqual(await fireDueSchedules(app.deps, new Date(due.getTime() + 100)), { claimed: 1, started: 0 });

    const firing = await harness.deps.db('schedule_firings').where({ schedule_id: scheduleId }).first();
    assert.deepEqual([firing.outcome, firing.run_id], ['refused', null]);
    assert.match(firing.reason, /already holds 0 runs waiting for one of its 1 places in flight/);
    const event = await harness.deps.db('events').where({ type: 'schedule.fired', subject: scheduleId }).first();
    assert.equal(event.payload.outcome, 'refused');
    assert.equal(event.payload.reason, firing.reason);
    assert.equal(await runCount(), 1);
  });

  it('once its run rests, the account is admitted again on the same path', async () => {
    const [run] = await harness.deps.db('runs').where({ account_id: account.accountId }).select('id');
    release!();
    await pollUntilRest(account.token, run.id);
    const again = await harness.call(
      'POST',
      '/v1/orchestrator/run',
      { token: account.token, headers: { prefer: 'respond-async' }, body: target.request },
      app.url,
    );
    assert.equal(again.status, 202, again.text);
    await pollUntilRest(account.token, again.body.runId);
  });
});
