import assert from 'node:assert/strict';
import { sweepActions } from '../../jobs/bridge/action-jobs.js';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { harness } from '../support/harness.js';
import { daytimeOutreach } from '../support/outreach.js';
import { startReceiver, until } from '../support/receiver.js';
import { startTestProvider } from '../support/test-adapter.js';

/**
 * A run routed to bridge performs the action its request asks for, end to end: the orchestrator's step job on the
 * bridge queue → preflight, policy and the outreach gate → the action on the bridge-actions queue → a local
 * provider (a signed webhook receiver, or a provider adapter's API) → the action's result and proof in the run's
 * result and proof card. What cannot be done rests the run with the reason.
 */
describe('bridge runs: a run sends what its request asks, through a connector', function () {
  this.timeout(60_000);
  const secret = newWebhookSecret();
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let provider: Awaited<ReturnType<typeof startTestProvider>>;
  let a: { token: string; accountId: string };
  const call = (method: string, path: string, body?: unknown, token = a.token) =>
    harness.call(method, path, { token, ...(body === undefined ? {} : { body }) });
  const submit = (body: Record<string, unknown>, token = a.token) =>
    call('POST', '/v1/orchestrator/run', { ...body }, token);
  /** The run once it has come to rest at a final status (a sync answer may come at awaitingAction first). */
  const finished = (runId: string, token = a.token) =>
    until(
      async () => (await call('GET', `/v1/runs/${runId}`, undefined, token)).body.run,
      (r) => ['ready', 'failed', 'canceled', 'expired'].includes(r.status) && Boolean(r.result),
      20_000,
    );

  before(async () => {
    receiver = await startReceiver(() => [secret]);
    provider = await startTestProvider('slack', (hit) => ({
      status: 200,
      body: { id: `ts-${hit.idempotencyKey.slice(-6)}`, status: 'sent' },
    }));
    a = await harness.account();
    for (const body of [
      { connectorId: 'mailer', kind: 'custom', caps: ['msg.email'], endpoint: receiver.url, signingSecret: secret },
      { connectorId: 'team-slack', kind: 'slack', caps: ['msg.chat'], endpoint: provider.url },
      { connectorId: 'texter', kind: 'custom', caps: ['msg.sms'], endpoint: receiver.url, signingSecret: secret },
      // A client-hosted adapter: its actions wait for the client's update, past the step's wait.
      { connectorId: 'relay', kind: 'custom', caps: ['crm.create'], endpoint: 'bridge://client/relay' },
    ]) {
      const made = await call('POST', '/v1/bridge/connectors', body);
      assert.equal(made.status, 201, made.text);
    }
  });
  after(async () => {
    await receiver.stop();
    await provider.stop();
  });

  it('domainRoute bridge: the email goes out through the connector, its result and proof in the run', async () => {
    const before = receiver.received.length;
    const res = await submit({
      request: 'email the signed invoice to accounting@example.com',
      domainRoute: ['bridge'],
      metadata: { outreach: { lawfulBasis: 'contract', purpose: 'invoicing' } },
    });
    assert.equal(res.status, 200, res.text);
    const run = await finished(res.body.runId);
    assert.equal(run.status, 'ready', JSON.stringify(run.result));
    const out = run.result.results.bridge;
    assert.deepEqual(
      [out.performed, out.ok, out.status, out.capability, out.connectorId, out.recipient, out.message],
      [true, true, 'succeeded', 'msg.email', 'mailer', 'accounting@example.com', 'the signed invoice'],
    );
    const got = receiver.received.slice(before);
    assert.equal(got.length, 1, 'one signed call');
    assert.deepEqual(got[0]!.body.data.input, {
      to: 'accounting@example.com',
      subject: 'The signed invoice',
      text: 'the signed invoice',
    });
    assert.equal(got[0]!.headers['idempotency-key'], out.actionId);
    assert.match(out.proof.requestSha256, /^[0-9a-f]{64}$/);
    assert.equal(out.proof.responseStatus, 200);
    const action = (await call('GET', out.actionRoute)).body.action;
    assert.deepEqual([action.status, action.refs.runId], ['succeeded', res.body.runId]);
    assert.equal(run.result.proofCard.evidenceStatus, 'sourceBound');
    const exported = await call('POST', `/v1/audit/proofCards/${run.result.proofCard.cardId}/export`, {
      format: 'service/v1',
    });
    const cited = exported.body.ledgerEntry.decision.evidence.find((e: any) => e.domain === 'bridge');
    assert.deepEqual([cited.source, cited.sourceBound], [`awp:bridgeAction:${out.actionId}#proof`, true]);
    assert.match(cited.claim, new RegExp(`Request sha256 ${out.proof.requestSha256.slice(0, 16)}`));
  });

  it('routed by the words alone: "post … to #ops" goes through the Slack adapter', async () => {
    const res = await submit({ request: 'post the incident summary to #ops' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.route, ['bridge']);
    const run = await finished(res.body.runId);
    const out = run.result.results.bridge;
    assert.deepEqual(
      [run.status, out.status, out.connectorId, out.providerRef],
      ['ready', 'succeeded', 'team-slack', `ts-${out.actionId.slice(-6)}`],
    );
    const hit = provider.hits.find((h) => h.idempotencyKey === out.actionId);
    assert.deepEqual(hit?.body, { capability: 'msg.chat', input: { channel: '#ops', text: 'the incident summary' } });
    assert.equal(out.request.adapter, 'slack');
  });

  it('an outreach the gate refuses rests the run with the reason; nothing is written or sent', async () => {
    const before = receiver.received.length;
    const res = await submit({ request: 'text +14155550100 that the van arrives at 3pm', domainRoute: ['bridge'] });
    const run = await finished(res.body.runId);
    const out = run.result.results.bridge;
    assert.equal(run.status, 'ready');
    assert.deepEqual(
      [out.performed, out.reason, out.capability, out.recipient],
      [false, 'outreachRefused', 'msg.sms', '+14155550100'],
    );
    assert.match(out.message, /no lawful basis/);
    assert.ok(run.result.proofCard.openQuestions.some((q: string) => /no lawful basis/.test(q)));
    const rows = await harness.deps.db('bridge_actions').where({ run_id: res.body.runId });
    assert.equal(rows.length, 0);
    assert.equal(receiver.received.length, before);

    const allowed = await submit({
      request: 'text +14155550100 that the van arrives at 3pm',
      domainRoute: ['bridge'],
      metadata: { outreach: daytimeOutreach() },
    });
    const sent = (await finished(allowed.body.runId)).result.results.bridge;
    assert.deepEqual([sent.status, sent.message], ['succeeded', 'the van arrives at 3pm']);
  });

  it('no connector for the capability, or no recipient: a clear reason, not an error', async () => {
    const b = await harness.account();
    const none = await finished(
      (await submit({ request: 'email the report to boss@example.com', domainRoute: ['bridge'] }, b.token)).body.runId,
      b.token,
    );
    assert.equal(none.status, 'ready');
    assert.deepEqual(
      [none.result.results.bridge.reason, none.result.results.bridge.capabilities],
      ['noConnector', ['msg.email', 'email.send']],
    );
    const nobody = await finished(
      (await submit({ request: 'email the signed invoice to accounting', domainRoute: ['bridge'] })).body.runId,
    );
    assert.equal(nobody.result.results.bridge.reason, 'noRecipient');
    assert.match(
      nobody.result.proofCard.openQuestions.join(' '),
      /whom should the email go to\? The request names no email address/,
    );
    const vague = await finished(
      (await submit({ request: 'sync the CRM connector', domainRoute: ['bridge'] })).body.runId,
    );
    assert.equal(vague.result.results.bridge.reason, 'notUnderstood');
  });

  it('an action still under way rests the run at awaitingAction; its end resumes the run once', async () => {
    const res = await submit({
      request: 'run crm.create for the new customer Acme Corp',
      domainRoute: ['bridge'],
      metadata: { input: { name: 'Acme Corp' } },
    });
    const resting = await until(
      async () => (await call('GET', `/v1/runs/${res.body.runId}`)).body.run,
      (r) => r.status === 'awaitingAction',
      20_000,
    );
    assert.equal(resting.waitpoint.kind, 'awaitingAction');
    const actionId = resting.waitpoint.payload.actionId;
    const action = (await call('GET', `/v1/bridge/actions/${actionId}`)).body.action;
    assert.deepEqual(
      [action.status, action.capability, action.input.name],
      ['awaitingClient', 'crm.create', 'Acme Corp'],
    );
    const updated = await call('POST', `/v1/bridge/actions/${actionId}/update`, {
      status: 'succeeded',
      response: { id: 'crm-42' },
      providerRef: 'crm-42',
    });
    assert.equal(updated.status, 200, updated.text);
    const run = await finished(res.body.runId);
    assert.equal(run.status, 'ready');
    assert.deepEqual(
      [run.result.results.bridge.status, run.result.results.bridge.providerRef],
      ['succeeded', 'crm-42'],
    );
    const resumed = (await harness.deps.db('run_events').where({ run_id: res.body.runId, type: 'trace' })).filter(
      (e) => e.data.event === 'run.resumed',
    );
    assert.equal(resumed.length, 1, 'resumed once');
  });

  it('a run whose resume was lost (its action settled where nothing resumes it) is resumed by the sweep', async () => {
    const res = await submit({
      request: 'run crm.create for Initech',
      domainRoute: ['bridge'],
      metadata: { connectorId: 'relay' },
    });
    const resting = await until(
      async () => (await call('GET', `/v1/runs/${res.body.runId}`)).body.run,
      (r) => r.status === 'awaitingAction',
      20_000,
    );
    const actionId = resting.waitpoint.payload.actionId;
    // Settled behind the service's back, a minute ago: nothing resumed the run.
    await harness.deps
      .db('bridge_actions')
      .where({ id: actionId })
      .update({ status: 'succeeded', updated_at: harness.deps.db.raw("now() - interval '5 minutes'") });
    assert.equal((await call('GET', `/v1/runs/${res.body.runId}`)).body.run.status, 'awaitingAction');
    const swept = await Promise.all([sweepActions(harness.deps), sweepActions(harness.deps)]);
    assert.ok(swept[0].runsResumed + swept[1].runsResumed >= 1);
    const run = await finished(res.body.runId);
    assert.deepEqual([run.status, run.result.results.bridge.status], ['ready', 'succeeded']);
    await sweepActions(harness.deps);
    const resumed = (await harness.deps.db('run_events').where({ run_id: res.body.runId, type: 'trace' })).filter(
      (e) => e.data.event === 'run.resumed',
    );
    assert.equal(resumed.length, 1, 'two sweeps at once, and one more after, resume it once');
    const row = await harness.deps.db('bridge_actions').where({ id: actionId }).first();
    assert.ok(row.run_read_at, 'the run has had its action');
  });
});
