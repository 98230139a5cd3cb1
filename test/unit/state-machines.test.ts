import assert from 'node:assert/strict';
import { ENVELOPES } from '../../jobs/envelopes/machine.js';
import { DELIVERIES, SUBSCRIPTIONS } from '../../jobs/events/machines.js';
import { defineMachine, type Machine } from '../../jobs/state-machine.js';
import { RUN_TO_TASK, TASKS } from '../../jobs/tasks/machine.js';
import { MISSIONS } from '../../jobs/proxy/machine.js';
import { RUNS, WAIT_STATUSES } from '../../jobs/orchestrator/run-state.js';
import { MISSION_STATUSES } from '../../jobs/proxy/schemas.js';
import { ACTIONS } from '../../jobs/bridge/machines.js';
import { ACTION_STATUSES } from '../../jobs/bridge/connector-schemas.js';
import { INCIDENTS } from '../../jobs/incident/machine.js';
import { INCIDENT_STATUSES } from '../../jobs/incident/schemas.js';

function reachable(machine: Machine<string>, from: string): Set<string> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    for (const to of machine.allowed(queue.shift()!)) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return seen;
}

describe('state machines', () => {
  it('derive terminal statuses from the table: the ones with no moves', () => {
    assert.deepEqual(TASKS.terminal, ['completed', 'failed', 'canceled']);
    assert.deepEqual(DELIVERIES.terminal, ['completed', 'failed', 'canceled']);
    assert.deepEqual(SUBSCRIPTIONS.terminal, []);
    const m = defineMachine({ a: ['b'], b: [] });
    assert.deepEqual(
      [m.isTerminal('b'), m.isTerminal('a'), m.canMove('a', 'b'), m.canMove('b', 'a'), m.canMove('a', 'a')],
      [true, false, true, false, false],
    );
  });

  it('know nothing of statuses outside the table', () => {
    assert.deepEqual(
      [TASKS.allowed('toString'), TASKS.canMove('toString', 'open'), TASKS.isTerminal('nope')],
      [[], false, false],
    );
  });

  it('reach every status from the first one, and every terminal status from every live one', () => {
    for (const [machine, first] of [
      [TASKS, 'open'],
      [DELIVERIES, 'queued'],
      [SUBSCRIPTIONS, 'active'],
      [INCIDENTS, 'triggered'],
    ] as const) {
      assert.deepEqual([...reachable(machine, first)].sort(), [...machine.statuses].sort());
      for (const s of machine.statuses)
        for (const t of machine.terminal)
          assert.ok(reachable(machine, s).has(t) || machine.isTerminal(s), `${s} cannot reach ${t}`);
    }
  });

  it('hold the moves the ledger makes in set-based SQL (claim, sweep, fast complete)', () => {
    assert.ok(DELIVERIES.canMove('queued', 'claimed'));
    assert.ok(DELIVERIES.canMove('claimed', 'queued'));
    assert.ok(DELIVERIES.canMove('claimed', 'completed'));
  });

  it('move an A2A envelope from queued to every status, and let a live one still fail or be canceled', () => {
    assert.deepEqual([...reachable(ENVELOPES, 'queued')].sort(), [...ENVELOPES.statuses].sort());
    for (const s of ENVELOPES.statuses.filter((x) => !ENVELOPES.isTerminal(x)))
      assert.ok(ENVELOPES.canMove(s, 'failed') && ENVELOPES.canMove(s, 'canceled'), s);
  });

  it(
    'take a bridge action from queued to every status, as the API enum lists them, and let failed and ' +
      'timed-out ones run again',
    () => {
      assert.deepEqual(ACTIONS.statuses, [...ACTION_STATUSES]);
      assert.deepEqual([...reachable(ACTIONS, 'queued')].sort(), [...ACTIONS.statuses].sort());
      assert.deepEqual(ACTIONS.terminal, ['delivered']);
      assert.ok(ACTIONS.canMove('failed', 'queued') && ACTIONS.canMove('timedOut', 'queued'));
    },
  );

  it('list incident statuses as the API enum does; resolved is final, only a mitigated one fires again', () => {
    assert.deepEqual(INCIDENTS.statuses, [...INCIDENT_STATUSES]);
    assert.deepEqual(INCIDENTS.terminal, ['resolved']);
    assert.deepEqual(
      INCIDENTS.statuses.filter((s) => INCIDENTS.canMove(s, 'triggered')),
      ['mitigated'],
    );
  });

  it(
    'take a proxy mission from open to every status, list them as the API enum does, and end a live one by ' +
      'outcome, clock or cancel',
    () => {
      assert.deepEqual(MISSIONS.statuses, [...MISSION_STATUSES]);
      assert.deepEqual([...reachable(MISSIONS, 'open')].sort(), [...MISSIONS.statuses].sort());
      assert.deepEqual(MISSIONS.terminal, ['resolved', 'failed', 'expired', 'canceled']);
      for (const s of MISSIONS.statuses.filter((x) => !MISSIONS.isTerminal(x)))
        for (const t of MISSIONS.terminal) assert.ok(MISSIONS.canMove(s, t), `${s} → ${t}`);
    },
  );

  it('move every waiting run status to queued (a resume guards its update with the status the run rests at)', () => {
    for (const w of WAIT_STATUSES) assert.ok(RUNS.canMove(w, 'queued'), w);
  });

  it('map every run status a task follows onto a task status', () => {
    for (const to of Object.values(RUN_TO_TASK)) assert.ok(TASKS.statuses.includes(to), to);
  });
});
