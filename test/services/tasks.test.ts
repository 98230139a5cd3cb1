import assert from 'node:assert/strict';
import type { AppError } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { createTask, transitionTask, transitionTaskForRun, updateTaskByClient } from '../../jobs/tasks/service.js';
import { harness } from '../support/harness.js';

describe('task service', () => {
  let principal: Principal;
  before(async () => {
    const a = await harness.account();
    principal = { accountId: a.accountId, tokenId: a.tokenId, scopes: [], plan: 'team', activated: true };
  });

  const db = () => harness.deps.db;
  const auditOf = async (taskId: string) =>
    (await db()('task_audit').where({ task_id: taskId }).orderBy('id')).map((a) => [a.from_status, a.to_status]);
  const completedEvents = async (taskId: string) => db()('events').where({ type: 'task.completed', subject: taskId });

  it('refuses an illegal move with 409 and the allowed moves, writing no audit row and changing nothing', async () => {
    const { task } = await createTask(harness.deps, principal, { domain: 'hunt', inData: {} });
    await updateTaskByClient(harness.deps, principal, task.id, { status: 'running' });
    await updateTaskByClient(harness.deps, principal, task.id, { status: 'canceled' });
    const before = await db()('tasks').where({ id: task.id }).first();
    await assert.rejects(
      updateTaskByClient(harness.deps, principal, task.id, { status: 'running', outData: { sneaky: true } }),
      (err: AppError) =>
        err.status === 409 &&
        JSON.stringify(err.details) === JSON.stringify({ from: 'canceled', to: 'running', allowed: [] }),
    );
    assert.deepEqual(await auditOf(task.id), [
      [null, 'open'],
      ['open', 'running'],
      ['running', 'canceled'],
    ]);
    assert.deepEqual(await db()('tasks').where({ id: task.id }).first(), before);
  });

  it('an open task cannot jump to awaitingInput: only running may wait', async () => {
    const { task } = await createTask(harness.deps, principal, { domain: 'resolve', inData: {} });
    await assert.rejects(
      updateTaskByClient(harness.deps, principal, task.id, { status: 'awaitingInput' }),
      (err: AppError) => err.status === 409,
    );
    assert.deepEqual(await auditOf(task.id), [[null, 'open']]);
  });

  it(
    'completion writes its audit row and task.completed in ' + "the caller's transaction: a rollback leaves neither",
    async () => {
      const { task } = await createTask(harness.deps, principal, { domain: 'hunt', inData: {} });
      await assert.rejects(
        db().transaction(async (trx) => {
          await transitionTask(trx, principal.accountId, task.id, 'completed', { actor: 'test', outData: { a: 1 } });
          throw new Error('the caller fails after the move');
        }),
        /caller fails/,
      );
      assert.equal((await db()('tasks').where({ id: task.id }).first()).status, 'open');
      assert.deepEqual(await auditOf(task.id), [[null, 'open']]);
      assert.equal((await completedEvents(task.id)).length, 0);
      await db().transaction((trx) =>
        transitionTask(trx, principal.accountId, task.id, 'completed', { actor: 'test', outData: { a: 1 } }),
      );
      assert.deepEqual(await auditOf(task.id), [
        [null, 'open'],
        ['open', 'completed'],
      ]);
      assert.equal((await completedEvents(task.id)).length, 1);
    },
  );

  it('staying in the same status updates data and merges state without an audit row or a second event', async () => {
    const { task } = await createTask(harness.deps, principal, { domain: 'hunt', inData: {} });
    await updateTaskByClient(harness.deps, principal, task.id, { state: { a: 1 } });
    await updateTaskByClient(harness.deps, principal, task.id, { status: 'completed', outData: { v: 1 } });
    const again = await updateTaskByClient(harness.deps, principal, task.id, {
      status: 'completed',
      outData: { v: 2 },
      state: { b: 2 },
    });
    assert.deepEqual(
      [again.task.status, again.task.out_data, again.task.state],
      ['completed', { v: 2 }, { a: 1, b: 2 }],
    );
    assert.deepEqual(await auditOf(task.id), [
      [null, 'open'],
      ['open', 'completed'],
    ]);
    assert.equal((await completedEvents(task.id)).length, 1);
  });

  it('a run status that the task cannot follow is skipped, not an error', async () => {
    const { task } = await createTask(harness.deps, principal, { domain: 'hunt', inData: {} });
    await updateTaskByClient(harness.deps, principal, task.id, { status: 'failed' });
    const deliveries = await db().transaction((trx) =>
      transitionTaskForRun(trx, principal.accountId, task.id, 'ready', { runId: 'run_x' }),
    );
    assert.equal(deliveries, 0);
    assert.equal((await db()('tasks').where({ id: task.id }).first()).status, 'failed');
    assert.deepEqual(await auditOf(task.id), [
      [null, 'open'],
      ['open', 'failed'],
    ]);
  });

  it("another account's task is 404, through the service as through the API", async () => {
    const { task } = await createTask(harness.deps, principal, { domain: 'hunt', inData: {} });
    const other: Principal = { ...principal, accountId: (await harness.account()).accountId };
    await assert.rejects(
      updateTaskByClient(harness.deps, other, task.id, { status: 'running' }),
      (err: AppError) => err.status === 404,
    );
    assert.deepEqual(await auditOf(task.id), [[null, 'open']]);
  });
});
