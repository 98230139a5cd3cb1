import assert from 'node:assert/strict';
import { sweepAdmissions } from '../../jobs/orchestrator/admission.js';
import { sweepStuckRuns } from '../../jobs/orchestrator/stuck-runs.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { gateResolveSteps } from '../support/gated-steps.js';
import { pollUntilRest, seedCatalog } from '../support/runs.js';

/**
 * Per-account admission through the real queue and workers (jobs/orchestrator/admission.ts). The runs are submitted
 * to an app whose team plan allows 2 runs in flight; their `resolve` step waits until the test lets it go, so which
 * runs hold a place, which are held and in what order they start is decided by the test, never by timing.
 */
describe('fair admission: an account has its places in flight, the rest are held and admitted in turn', function () {
  this.timeout(60_000);
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  /** Accounts whose resolve steps wait for the test (`blocked`); the release of each waiting step, by run id. */
  let steps: ReturnType<typeof gateResolveSteps>;

  const submit = (token: string, opts: { sync?: boolean; url?: string } = {}) =>
    harness.call(
      'POST',
      '/v1/orchestrator/run',
      {
        token,
        headers: opts.sync ? {} : { prefer: 'respond-async' },
        body: { request: 'audit the vendor', domainRoute: ['resolve'] },
      },
      opts.url ?? app.url,
    );
  const submitMany = async (token: string, n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await submit(token);
      assert.equal(res.status, 202, res.text);
      ids.push(res.body.runId);
    }
    return ids;
  };
  const view = async (token: string, runId: string) =>
    (await harness.call('GET', `/v1/runs/${runId}`, { token })).body.run;
  const running = (ids: string[]) => steps.running(ids);
  /** The account's hold as submissions read it: its striped tally, kept by triggers. */
  const heldTally = async (accountId: string) =>
    Number(
      (await harness.deps.db('run_hold_tallies').where({ account_id: accountId }).sum({ n: 'held' }).first())!.n ?? 0,
    );
  const letGo = (runId: string) => {
    const release = steps.gates.get(runId);
    assert.ok(release, `run ${runId} is running its step`);
    release();
  };
  /** Lets every step of the account go, now and from now on, and waits until its runs rest. */
  const drain = async (accountId: string, token: string, ids: string[]) => {
    steps.blocked.delete(accountId);
    for (const id of ids) steps.gates.get(id)?.();
    for (const id of ids) await pollUntilRest(token, id);
  };

  before(async () => {
    app = await startExtraApp({
      ACCOUNT_RUNS_IN_FLIGHT_TEAM: '2',
      ACCOUNT_RUNS_HELD_MAX: '25',
      RUN_SYNC_WAIT_MS: '300',
    });
    steps = gateResolveSteps();
  });

  after(async () => {
    steps.release();
    await app.stop();
  });

  it('holds the runs past its places, says why and where, and starts them in submission order', async () => {
    const { accountId, token } = await harness.account();
    steps.blocked.add(accountId);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await submit(token));
    // Without respond-async the answer waits RUN_SYNC_WAIT_MS, then says the run is still held.
    answers.push(await submit(token, { sync: true }));
    const ids = answers.map((a) => a.body.runId as string);
    const [first, second, held1, held2, held3] = ids as [string, string, string, string, string];
    assert.deepEqual(
      answers.map((a) => [a.status, a.body.status, a.body.hold?.position ?? null]),
      [
        [202, 'queued', null],
        [202, 'queued', null],
        [202, 'queued', 1],
        [202, 'queued', 2],
        [202, 'queued', 3],
      ],
    );
    await running([first, second]);

    const waiting = await view(token, held1);
    assert.equal(waiting.status, 'queued');
    assert.deepEqual(waiting.steps, []);
    assert.equal(waiting.hold.position, 1);
    assert.equal(waiting.hold.inFlight, 2);
    assert.equal(waiting.hold.inFlightLimit, 2);
    assert.match(waiting.hold.reason, /places for runs in flight are taken/);
    assert.equal((await view(token, first)).hold, null);
    const created = await harness.deps.db('run_events').where({ run_id: held1, seq: 1 }).first();
    assert.equal(created.data.hold.position, 1, 'a follower reads the hold from the first event');

    // One place frees: the oldest held run starts, the others move up, nothing else starts.
    letGo(first);
    await running([held1]);
    assert.equal((await view(token, held1)).hold, null);
    assert.equal((await view(token, held2)).hold.position, 1);
    assert.equal((await view(token, held3)).hold.position, 2);
    assert.ok(!steps.gates.has(held2) && !steps.gates.has(held3));
    letGo(second);
    await running([held2]);
    assert.equal((await view(token, held3)).hold.position, 1);
    assert.ok(!steps.gates.has(held3));

    await drain(accountId, token, ids);
    for (const id of ids) assert.equal((await view(token, id)).status, 'ready');
    const admitted = await harness.deps
      .db('run_events')
      .whereIn('run_id', ids)
      .whereRaw(`type = 'trace' AND data->>'event' = 'run.admitted'`)
      .select('run_id');
    assert.deepEqual(admitted.map((e) => e.run_id).sort(), [held1, held2, held3].sort(), 'each held run admitted once');
  });

  it('twenty submissions at once take exactly the two places; the other eighteen are held, in line 1..18', async () => {
    const { accountId, token } = await harness.account();
    steps.blocked.add(accountId);
    const answers = await Promise.all(Array.from({ length: 20 }, () => submit(token)));
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([202]));
    const ids = answers.map((a) => a.body.runId as string);
    const inFlight = answers.filter((a) => !a.body.hold).map((a) => a.body.runId as string);
    assert.equal(inFlight.length, 2);
    // At submission a position is an estimate (racing submissions count the same held runs); read back, the line is
    // exact: 1..18 in the order they were held.
    const answered = answers.map((a) => a.body.hold?.position as number | undefined).filter(Boolean);
    assert.equal(answered.length, 18);
    assert.ok(answered.every((p) => p! >= 1 && p! <= 18));
    const held = ids.filter((id) => !inFlight.includes(id));
    const line = await Promise.all(held.map(async (id) => (await view(token, id)).hold.position as number));
    assert.deepEqual(
      line.sort((x, y) => x - y),
      Array.from({ length: 18 }, (_, i) => i + 1),
    );
    const places = await harness.deps.db('runs').whereIn('id', ids).whereNotNull('slot').select('slot');
    assert.deepEqual(places.map((p) => p.slot).sort(), [0, 1]);
    await running(inFlight);
    await drain(accountId, token, ids);
  });

  it('runs resting while more arrive: every held run admitted once, never more in flight than the places', async () => {
    const { accountId, token } = await harness.account();
    steps.blocked.add(accountId);
    const ids = (await Promise.all(Array.from({ length: 12 }, () => submit(token)))).map((a) => a.body.runId as string);
    let most = 0;
    // Let the running steps go as they appear, while ten more submissions race the admissions their rests start.
    const more = Promise.all(Array.from({ length: 10 }, () => submit(token)));
    const all = [...ids];
    for (const answer of await more) all.push(answer.body.runId as string);
    while (true) {
      const now = all.filter((id) => steps.gates.has(id));
      most = Math.max(most, (await harness.deps.db('runs').whereIn('id', all).where({ status: 'running' })).length);
      const open = await harness.deps.db('runs').whereIn('id', all).whereIn('status', ['queued', 'running']);
      if (open.length === 0) break;
      for (const id of now) steps.gates.get(id)!();
      for (const id of now) steps.gates.delete(id);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(most <= 2, `at most the 2 places in flight (saw ${most})`);
    const admitted = await harness.deps
      .db('run_events')
      .whereIn('run_id', all)
      .whereRaw(`type = 'trace' AND data->>'event' = 'run.admitted'`)
      .select('run_id');
    const once = new Set(admitted.map((e) => e.run_id));
    assert.equal(once.size, admitted.length, 'no run admitted twice');
    assert.equal(once.size, 20, 'every run beyond the first two places was held, then admitted');
    steps.blocked.delete(accountId);
  });

  it("another account's run starts at once, ahead of the first account's held backlog", async () => {
    const a = await harness.account();
    const b = await harness.account();
    steps.blocked.add(a.accountId);
    const backlog = await submitMany(a.token, 22);
    await running(backlog.slice(0, 2));

    const other = await submit(b.token);
    assert.equal(other.body.hold, undefined, 'not held');
    const done = await pollUntilRest(b.token, other.body.runId);
    assert.equal(done.status, 'ready');
    const stillHeld = await harness.deps
      .db('runs')
      .whereIn('id', backlog)
      .whereNotNull('held_at')
      .where('status', 'queued');
    assert.deepEqual(
      stillHeld.map((r) => r.id).sort(),
      backlog.slice(2).sort(),
      "all 20 of the first account's held runs are still held after the other account's run rested",
    );
    await drain(a.accountId, a.token, backlog);
  });

  it('a held run cancels at once: it rests canceled without running, and takes no place from anyone', async () => {
    const { accountId, token } = await harness.account();
    steps.blocked.add(accountId);
    const ids = await submitMany(token, 4);
    await running(ids.slice(0, 2));

    const cancel = await harness.call('POST', `/v1/runs/${ids[2]}/cancel`, { token });
    assert.equal(cancel.status, 200, cancel.text);
    const canceled = await pollUntilRest(token, ids[2]!);
    assert.equal(canceled.status, 'canceled');
    assert.deepEqual(canceled.steps, []);
    assert.equal(canceled.hold, null);
    assert.equal((await harness.call('POST', `/v1/runs/${ids[2]}/cancel`, { token })).status, 409);
    // It held no place: nothing was admitted for it, and the next held run moved up.
    const next = await view(token, ids[3]!);
    assert.equal(next.hold.position, 1);
    assert.equal(next.hold.inFlight, 2);
    const stillHeld = await harness.deps
      .db('runs')
      .where({ account_id: accountId, status: 'queued' })
      .whereNotNull('held_at')
      .count<Array<{ count: string }>>('* as count');
    assert.equal(Number(stillHeld[0]!.count), 1, 'one run is still held');
    assert.equal(await heldTally(accountId), 1, 'the cancel left the tally');

    letGo(ids[0]!);
    await running([ids[3]!]);
    await drain(accountId, token, ids);
    assert.equal((await view(token, ids[3]!)).status, 'ready');
  });

  it('the clock admits a held run whose admission was lost; the stuck-run sweep leaves held runs alone', async () => {
    const { accountId, token } = await harness.account();
    steps.blocked.add(accountId);
    const ids = await submitMany(token, 3);
    const [first, second, held] = ids as [string, string, string];
    await running([first, second]);

    // Held for ten minutes: waiting for a place, not stuck.
    await harness.deps
      .db('runs')
      .where({ id: held })
      .update({ updated_at: harness.deps.db.raw(`now() - interval '10 minutes'`) });
    await sweepStuckRuns(harness.deps);
    const untouched = await harness.deps.db('runs').where({ id: held }).first();
    assert.equal(untouched.drives, 0);
    assert.ok(untouched.held_at, 'still held');

    // A place frees with no admission after it (a finalizer that died after its write).
    await harness.deps
      .db('runs')
      .where({ id: first })
      .update({ status: 'failed', finished_at: harness.deps.db.fn.now() });
    assert.ok((await view(token, held)).hold, 'nobody admitted it');
    assert.equal(await heldTally(accountId), 1);

    const swept = await sweepAdmissions(harness.deps);
    assert.ok(swept.admitted >= 1, JSON.stringify(swept));
    await running([held]);
    assert.equal((await view(token, held)).hold, null);
    assert.equal(await heldTally(accountId), 0, 'the tally follows the runs, whoever admitted them');
    await drain(accountId, token, [second, held]);
  });

  it('a resumed run waits for a place like a new one, ahead of the runs submitted after it', async () => {
    const { accountId, token } = await harness.account();
    await seedCatalog(accountId);
    const choice = await harness.call(
      'POST',
      '/v1/orchestrator/run',
      {
        token,
        headers: { prefer: 'respond-async' },
        body: { request: 'shortlist espresso machines under $250 so I can choose one', conversationId: 'conv-fair' },
      },
      app.url,
    );
    const waiting = await pollUntilRest(token, choice.body.runId);
    assert.equal(waiting.status, 'NEEDS_INPUT');
    steps.blocked.add(accountId);
    const ids = await submitMany(token, 3);
    await running(ids.slice(0, 2));

    const resumed = await harness.call('POST', `/v1/runs/${waiting.runId}/resume`, {
      token,
      body: { itemId: waiting.result.results.hunt.choices[0].itemId },
    });
    assert.equal(resumed.status, 202, resumed.text);
    assert.equal((await view(token, waiting.runId)).hold.position, 1, 'submitted first, it goes first');
    assert.equal((await view(token, ids[2]!)).hold.position, 2);

    letGo(ids[0]!);
    const rested = await pollUntilRest(token, waiting.runId);
    assert.equal(rested.status, 'awaitingApproval', 'the buy went on into pay, which waits for a mandate');
    // The resumed run took the freed place; the later run only the one the resumed run freed when it rested.
    await drain(accountId, token, ids);
    const admissions = await harness.deps
      .db('run_events')
      .whereIn('run_id', [waiting.runId, ids[2]!])
      .whereRaw(`type = 'trace' AND data->>'event' = 'run.admitted'`)
      .orderBy('created_at')
      .select('run_id');
    assert.deepEqual(
      admissions.map((e) => e.run_id),
      [waiting.runId, ids[2]],
    );
  });

  it('a full hold is refused 429 with Retry-After, and takes runs again once one leaves it', async () => {
    const small = await startExtraApp({ ACCOUNT_RUNS_IN_FLIGHT_TEAM: '1', ACCOUNT_RUNS_HELD_MAX: '2' });
    try {
      const { accountId, token } = await harness.account();
      steps.blocked.add(accountId);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await submit(token, { url: small.url })).body.runId);
      await running(ids.slice(0, 1));
      const before = await harness.deps.db('runs').where({ account_id: accountId }).count({ n: '*' }).first();

      const refused = await submit(token, { url: small.url });
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.error, 'rateLimitExceeded');
      assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      assert.equal(refused.body.details.heldLimit, 2);
      assert.equal(refused.body.details.inFlightLimit, 1);
      assert.deepEqual(
        await harness.deps.db('runs').where({ account_id: accountId }).count({ n: '*' }).first(),
        before,
      );

      assert.equal((await harness.call('POST', `/v1/runs/${ids[1]}/cancel`, { token })).status, 200);
      const again = await submit(token, { url: small.url });
      assert.equal(again.status, 202, again.text);
      assert.equal(again.body.hold.position, 2);
      await drain(accountId, token, [...ids, again.body.runId]);
    } finally {
      await small.stop();
    }
  });
});
