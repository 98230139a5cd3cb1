import assert from 'node:assert/strict';
import { sweepWaitpoints } from '../../jobs/orchestrator/waitpoint-expiry.js';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };

/** A prod delivery run resting at its deploy gate, and its open waitpoint's id. */
async function waitingRun(token: string) {
  const res = await harness.call('POST', '/v1/delivery/run', { token, body: { service: 'web', environment: 'prod', version: '3.1.0', artifacts: green } });
  assert.equal(res.body.status, 'awaitingApproval', res.text);
  const wp = await harness.deps.db('waitpoints').where({ run_id: res.body.runId }).whereNull('resolved_at').first();
  return { runId: res.body.runId as string, wp };
}

/** Moves a waitpoint's lifetime so that `left` of it remains (negative: past its expiry), by Postgres's clock. */
async function age(waitpointId: string, leftSeconds: number, lifetimeSeconds = 3600) {
  await harness.deps.db('waitpoints').where({ id: waitpointId }).update({
    created_at: harness.deps.db.raw('now() - make_interval(secs => ?)', [lifetimeSeconds - leftSeconds]),
    expires_at: harness.deps.db.raw('now() + make_interval(secs => ?)', [leftSeconds]),
  });
}

describe('waitpoints expire and escalate', () => {
  it('an approval waitpoint carries its expiry from APPROVAL_WAITPOINT_TTL_HOURS', async () => {
    const a = await harness.account();
    const { wp } = await waitingRun(a.token);
    const hours = (new Date(wp.expires_at).getTime() - new Date(wp.created_at).getTime()) / 3_600_000;
    assert.ok(Math.abs(hours - harness.deps.config.APPROVAL_WAITPOINT_TTL_HOURS) < 0.01, String(hours));
  });

  it('escalates once before expiry: a waitpoint.escalated event and a mail to each approver', async () => {
    const a = await harness.account();
    const approver = await member(a.accountId, 'approver');
    await member(a.accountId, 'developer');
    const { runId, wp } = await waitingRun(a.token);
    await age(wp.id, 60);
    await Promise.all([sweepWaitpoints(harness.deps), sweepWaitpoints(harness.deps)]);
    await sweepWaitpoints(harness.deps);
    const events = await harness.deps.db('events').where({ account_id: a.accountId, type: 'waitpoint.escalated' });
    assert.equal(events.length, 1, 'escalated exactly once');
    assert.equal(events[0].payload.runId, runId);
    assert.equal(events[0].payload.gate, 'deploy');
    const mails = await harness.deps.db('outbound_mails').where({ account_id: a.accountId }).where('subject', 'like', 'Approval waiting%');
    const to = mails.map((m: { to_address: string }) => m.to_address).sort();
    assert.ok(to.includes(`${approver.memberId}@test.local`), to.join());
    assert.ok(!to.some((t: string) => /developer/.test(t)) && to.length === 2, `owner and approver only: ${to.join()}`);
    const run = (await harness.call('GET', `/v1/runs/${runId}`, { token: a.token })).body.run;
    assert.equal(run.status, 'awaitingApproval', 'escalation does not end the run');
  });

  it('at expiry the approval fails closed exactly once under two concurrent sweeps; a late approval is 409', async () => {
    const a = await harness.account();
    const approver = await member(a.accountId, 'approver');
    const { runId, wp } = await waitingRun(a.token);
    await age(wp.id, -1);
    const [one, two] = await Promise.all([sweepWaitpoints(harness.deps), sweepWaitpoints(harness.deps)]);
    const mine = async () => (await harness.deps.db('waitpoints').where({ id: wp.id }).first());
    assert.ok((await mine()).resolution.expired);
    const expiredEvents = await harness.deps.db('run_events').where({ run_id: runId }).whereRaw("data->>'event' = 'waitpoint.expired'");
    assert.equal(expiredEvents.length, 1, `one expiry: ${JSON.stringify([one, two])}`);
    const run = (await harness.call('GET', `/v1/runs/${runId}`, { token: a.token })).body.run;
    assert.equal(run.status, 'expired');
    assert.match(run.error, /deploy approval was not given/);
    const finals = await harness.deps.db('run_events').where({ run_id: runId, type: 'final' });
    assert.equal(finals.length, 2, 'the gate segment and the expiry segment each end once');
    const late = await harness.call('POST', `/v1/delivery/runs/${runId}/resume`, { token: approver.token, body: { approved: true } });
    assert.equal(late.status, 409, late.text);
    const failed = await harness.deps.db('events').where({ account_id: a.accountId, type: 'run.failed', subject: runId });
    assert.equal(failed.length, 1);
    assert.equal(failed[0].payload.status, 'expired');
  });
});
