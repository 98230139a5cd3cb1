import assert from 'node:assert/strict';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { gateResolveSteps } from '../support/gated-steps.js';
import { pollUntilRest } from '../support/runs.js';

/**
 * A bursting account yields places while another account has runs in flight (ACCOUNT_RUNS_IN_FLIGHT_CONTENDED):
 * its places are refilled only up to the contended share, so the others' runs do not share the workers with its
 * whole plan. Steps wait until the test lets them go, so nothing here depends on timing.
 */
describe('fair admission under contention: a backlog refills only its share while others run', function () {
  this.timeout(60_000);
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  let steps: ReturnType<typeof gateResolveSteps>;

  const submit = async (token: string) => {
    const res = await harness.call(
      'POST',
      '/v1/orchestrator/run',
      {
        token,
        headers: { prefer: 'respond-async' },
        body: { request: 'audit the vendor', domainRoute: ['resolve'] },
      },
      app.url,
    );
    assert.equal(res.status, 202, res.text);
    return res.body.runId as string;
  };
  const held = async (accountId: string) =>
    (await harness.deps.db('runs').where({ account_id: accountId, status: 'queued' }).whereNotNull('held_at')).length;
  const admittedEvents = async (ids: string[]) =>
    (
      await harness.deps
        .db('run_events')
        .whereIn('run_id', ids)
        .whereRaw(`type = 'trace' AND data->>'event' = 'run.admitted'`)
    ).length;

  before(async () => {
    // Admissions are made where runs rest, by the harness's workers: their ACCOUNT_RUNS_IN_FLIGHT_CONTENDED (2, the
    // default) is the share here; this app gives the account's plan 4 places.
    app = await startExtraApp({ ACCOUNT_RUNS_IN_FLIGHT_TEAM: '4' });
    steps = gateResolveSteps();
  });
  after(async () => {
    steps.release();
    await app.stop();
  });

  it('while another account runs, a freed place of the bursting account is not refilled past its share', async () => {
    const a = await harness.account();
    const b = await harness.account();
    steps.blocked.add(a.accountId);
    steps.blocked.add(b.accountId);
    const backlog: string[] = [];
    for (let i = 0; i < 8; i++) backlog.push(await submit(a.token));
    await steps.running(backlog.slice(0, 4));
    assert.equal(await held(a.accountId), 4, 'four places in flight on its own plan, four held');
    const other = await submit(b.token);
    await steps.running([other]);

    // Two of A's four places free while B runs: A is down to two in flight, its share, and nothing is admitted.
    for (const id of backlog.slice(0, 2)) {
      steps.gates.get(id)!();
      await pollUntilRest(a.token, id);
    }
    assert.equal(await held(a.accountId), 4, 'A yields the places it freed to the others');
    assert.equal(await admittedEvents(backlog), 0);

    // A third rests: A is under its share, so one held run (the oldest) starts, and only one.
    steps.gates.get(backlog[2]!)!();
    await steps.running([backlog[4]!]);
    assert.equal(await held(a.accountId), 3);
    assert.equal(await admittedEvents(backlog), 1);

    steps.blocked.clear();
    for (const release of steps.gates.values()) release();
    for (const id of [...backlog, other]) await pollUntilRest(id === other ? b.token : a.token, id);
  });
});
