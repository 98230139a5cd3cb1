import assert from 'node:assert/strict';
import { sweepWaitpoints } from '../../jobs/orchestrator/waitpoint-expiry.js';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';
import { seedCatalog } from '../support/runs.js';
import { until } from '../support/receiver.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };

/** A prod delivery run resting at its deploy gate, and its open waitpoint's id. */
async function waitingRun(token: string) {
  const res = await harness.call('POST', '/v1/delivery/run', {
    token,
    body: { service: 'web', environment: 'prod', version: '3.1.0', artifacts: green },
  });
  assert.equal(res.body.status, 'awaitingApproval', res.text);
  const wp = await harness.deps.db('waitpoints').where({ run_id: res.body.runId }).whereNull('resolved_at').first();
  return { runId: res.body.runId as string, wp };
}

/** Moves a waitpoint's lifetime so that `left` of it remains (negative: past its expiry), by Postgres's clock. */
async function age(waitpointId: string, leftSeconds: number, lifetimeSeconds = 3600) {
  await harness.deps
    .db('waitpoints')
    .where({ id: waitpointId })
    .update({
      created_at: harness.deps.db.raw('now() - make_interval(secs => ?)', [lifetimeSeconds - leftSeconds]),
      expires_at: harness.deps.db.raw('now() + make_interval(secs => ?)', [leftSeconds]),
    });
}

/** A run resting at a NEEDS_INPUT choice, submitted with `token`, and its open waitpoint. */
async function choosingRun(token: string) {
  const res = await harness.call('POST', '/v1/orchestrator/run', {
    token,
    body: { request: 'shortlist espresso machines under $250 so I can choose one' },
  });
  assert.equal(res.body.status, 'NEEDS_INPUT', res.text);
  const wp = await harness.deps.db('waitpoints').where({ run_id: res.body.runId }).whereNull('resolved_at').first();
  return { runId: res.body.runId as string, wp };
}

/** The run's audit entries of `action`, read over the API. */
async function audited(token: string, runId: string, action: string) {
  const query = `resourceType=run&resourceId=${runId}&action=${action}`;
  const log = await harness.call('GET', `/v1/audit/log?${query}`, { token });
  assert.equal(log.status, 200, log.text);
  return log.body.entries as Array<{ memberId: string | null; details: Record<string, any> }>;
}

const choiceMails = (accountId: string): Promise<Array<{ to_address: string; subject: string }>> =>
  harness.deps.db('outbound_mails').where({ account_id: accountId }).where('subject', 'like', 'Choice waiting%');

describe('waitpoints expire and escalate', () => {
  it('an approval waitpoint carries its expiry from APPROVAL_WAITPOINT_TTL_HOURS, shown on the run', async () => {
    const a = await harness.account();
    const { runId, wp } = await waitingRun(a.token);
    const hours = (new Date(wp.expires_at).getTime() - new Date(wp.created_at).getTime()) / 3_600_000;
    assert.ok(Math.abs(hours - harness.deps.config.APPROVAL_WAITPOINT_TTL_HOURS) < 0.01, String(hours));
    const view = (await harness.call('GET', `/v1/runs/${runId}`, { token: a.token })).body.run.waitpoint;
    assert.equal(view.expiresAt, new Date(wp.expires_at).toISOString(), 'a client sees when the approval fails closed');
    assert.equal(view.escalatedAt, null);
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
    // The inbox sends the mails after the escalation commits (jobs/inbox/notices.ts).
    const mails = await until(
      () =>
        harness.deps
          .db('outbound_mails')
          .where({ account_id: a.accountId })
          .where('subject', 'like', 'Approval waiting%'),
      (m) => m.length >= 2,
    );
    const to = mails.map((m: { to_address: string }) => m.to_address).sort();
    assert.ok(to.includes(`${approver.memberId}@test.local`), to.join());
    assert.ok(!to.some((t: string) => /developer/.test(t)) && to.length === 2, `owner and approver only: ${to.join()}`);
    const run = (await harness.call('GET', `/v1/runs/${runId}`, { token: a.token })).body.run;
    assert.equal(run.status, 'awaitingApproval', 'escalation does not end the run');
    const audit = await audited(a.token, runId, 'waitpoint.escalated');
    assert.equal(audit.length, 1, 'one audit entry for the one escalation');
    const { gate, kind } = audit[0]!.details;
    assert.deepEqual(
      [audit[0]!.memberId, gate, kind],
      [null, 'deploy', 'awaitingApproval'],
      'the clock acted, no member',
    );
    assert.equal(audit[0]!.details.notified, 'approvers');
    assert.equal(audit[0]!.details.waitpointId, wp.id);
  });

  it(
    'at expiry the approval fails closed exactly once ' + 'under two concurrent sweeps; a late approval is 409',
    async () => {
      const a = await harness.account();
      const approver = await member(a.accountId, 'approver');
      const { runId, wp } = await waitingRun(a.token);
      await age(wp.id, -1);
      const [one, two] = await Promise.all([sweepWaitpoints(harness.deps), sweepWaitpoints(harness.deps)]);
      const mine = async () => await harness.deps.db('waitpoints').where({ id: wp.id }).first();
      assert.ok((await mine()).resolution.expired);
      const expiredEvents = await harness.deps
        .db('run_events')
        .where({ run_id: runId })
        .whereRaw("data->>'event' = 'waitpoint.expired'");
      assert.equal(expiredEvents.length, 1, `one expiry: ${JSON.stringify([one, two])}`);
      const run = (await harness.call('GET', `/v1/runs/${runId}`, { token: a.token })).body.run;
      assert.equal(run.status, 'expired');
      assert.match(run.error, /deploy approval was not given/);
      const finals = await harness.deps.db('run_events').where({ run_id: runId, type: 'final' });
      assert.equal(finals.length, 2, 'the gate segment and the expiry segment each end once');
      const late = await harness.call('POST', `/v1/delivery/runs/${runId}/resume`, {
        token: approver.token,
        body: { approved: true },
      });
      assert.equal(late.status, 409, late.text);
      const failed = await harness.deps
        .db('events')
        .where({ account_id: a.accountId, type: 'run.failed', subject: runId });
      assert.equal(failed.length, 1);
      assert.equal(failed[0].payload.status, 'expired');
      const audit = await audited(a.token, runId, 'waitpoint.expired');
      assert.equal(audit.length, 1, 'one audit entry for the one expiry');
      const { kind, gate, waitpointId } = audit[0]!.details;
      assert.deepEqual([kind, gate, waitpointId], ['awaitingApproval', 'deploy', wp.id]);
      assert.match(audit[0]!.details.reason, /deploy approval was not given/);
    },
  );

  it(
    'a choice (NEEDS_INPUT) escalates once to the member ' + 'who submitted it, then expires, both in the audit log',
    async () => {
      const a = await harness.account();
      await seedCatalog(a.accountId);
      const dev = await member(a.accountId, 'developer');
      await member(a.accountId, 'approver');
      const { runId, wp } = await choosingRun(dev.token);
      assert.ok(wp.expires_at, 'a choice carries an expiry');
      await age(wp.id, 60);
      await Promise.all([sweepWaitpoints(harness.deps), sweepWaitpoints(harness.deps)]);
      const events = await harness.deps.db('events').where({ account_id: a.accountId, type: 'waitpoint.escalated' });
      assert.equal(events.length, 1, 'escalated exactly once');
      const { payload } = events[0];
      assert.deepEqual([payload.runId, payload.kind, payload.gate], [runId, 'NEEDS_INPUT', null]);
      const mails = await until(
        () => choiceMails(a.accountId),
        (m) => m.length >= 1,
      );
      assert.deepEqual(
        mails.map((m) => m.to_address),
        [`${dev.memberId}@test.local`],
        'only the chooser',
      );
      assert.match(mails[0].subject, /^Choice waiting: run /);
      const escalated = await audited(a.token, runId, 'waitpoint.escalated');
      assert.equal(escalated.length, 1);
      assert.deepEqual([escalated[0]!.details.kind, escalated[0]!.details.notified], ['NEEDS_INPUT', 'submitter']);
      const view = (await harness.call('GET', `/v1/runs/${runId}`, { token: dev.token })).body.run;
      assert.equal(view.status, 'NEEDS_INPUT', 'escalation does not end the run');
      assert.ok(view.waitpoint.escalatedAt, 'the view shows that it escalated');

      await age(wp.id, -1);
      await Promise.all([sweepWaitpoints(harness.deps), sweepWaitpoints(harness.deps)]);
      const run = (await harness.call('GET', `/v1/runs/${runId}`, { token: dev.token })).body.run;
      assert.equal(run.status, 'expired');
      assert.match(run.error, /no answer came within/);
      const expired = await audited(a.token, runId, 'waitpoint.expired');
      assert.equal(expired.length, 1, 'one expiry under two sweeps');
      assert.deepEqual([expired[0]!.details.kind, expired[0]!.details.gate], ['NEEDS_INPUT', null]);
    },
  );

  it('a choice whose run has no submitting member escalates to the owners and admins', async () => {
    const a = await harness.account();
    await seedCatalog(a.accountId);
    const admin = await member(a.accountId, 'admin');
    await member(a.accountId, 'approver');
    const { runId, wp } = await choosingRun(a.token);
    await harness.deps.db('runs').where({ id: runId }).update({ submitted_by: null });
    await age(wp.id, 60);
    await sweepWaitpoints(harness.deps);
    const to = (
      await until(
        () => choiceMails(a.accountId),
        (m) => m.length >= 2,
      )
    ).map((m) => m.to_address);
    assert.equal(to.length, 2, to.join());
    assert.ok(to.includes(`${admin.memberId}@test.local`), to.join());
    assert.equal((await audited(a.token, runId, 'waitpoint.escalated'))[0]!.details.notified, 'admins');
  });
});
