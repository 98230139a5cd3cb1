import assert from 'node:assert/strict';
import { accountRunsChannel, announce } from '../../jobs/orchestrator/run-events.js';
import type { RunEvent } from '../../shared/db/runs.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

/** What a committed batch of run events tells live followers over the real Redis bus (run-events.ts `announce`). */
describe('announcing run events: one write, every channel that follows them', () => {
  const event = (id: number, type: string): RunEvent =>
    ({ id, runId: 'run_announce', type, at: new Date().toISOString(), event: 'x' }) as unknown as RunEvent;

  const listen = async (name: string) => {
    const got: unknown[] = [];
    const stop = await harness.deps.bus.subscribe(name, (m) => got.push(JSON.parse(m)));
    return { got, stop };
  };

  it("a status event reaches the run's followers as one ordered batch, and its account's lists", async () => {
    const run = await listen('run:run_announce');
    const account = await listen(accountRunsChannel('acct_announce'));
    try {
      announce(harness.deps, 'run_announce', [event(4, 'trace'), event(5, 'progress')], 'acct_announce');
      await until(
        () => run.got.length + account.got.length,
        (n) => n === 2,
      );
      assert.deepEqual(
        (run.got[0] as RunEvent[]).map((e) => [e.id, e.type]),
        [
          [4, 'trace'],
          [5, 'progress'],
        ],
      );
      assert.deepEqual(account.got, [{ runId: 'run_announce' }]);
    } finally {
      await run.stop();
      await account.stop();
    }
  });

  it('streamed output alone moves no status: the account hears nothing, and an empty batch sends nothing', async () => {
    const run = await listen('run:run_announce');
    const account = await listen(accountRunsChannel('acct_announce'));
    try {
      announce(harness.deps, 'run_announce', [], 'acct_announce');
      announce(harness.deps, 'run_announce', [event(6, 'progress')], 'acct_announce');
      await until(
        () => run.got.length,
        (n) => n === 1,
      );
      // A later status event on the account channel proves nothing else was published before it.
      announce(harness.deps, 'run_announce', [event(7, 'final')], 'acct_announce');
      await until(
        () => account.got.length,
        (n) => n === 1,
      );
      assert.equal(run.got.length, 2);
      assert.deepEqual(
        (run.got[0] as RunEvent[]).map((e) => e.id),
        [6],
      );
    } finally {
      await run.stop();
      await account.stop();
    }
  });
});
