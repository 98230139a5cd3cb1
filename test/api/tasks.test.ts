import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('tasks', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it('creates a task (201, open, audit), lists and fetches it', async () => {
    const res = await harness.call('POST', '/v1/tasks', {
      token: a.token,
      body: { domain: 'resolve', inData: { claim: 'x' }, userId: 'u1', channel: 'sdk' },
    });
    assert.equal(res.status, 201);
    const task = res.body.task;
    assert.match(task.taskId, /^task_/);
    assert.deepEqual([task.status, task.domain, task.channel, task.userId], ['open', 'resolve', 'sdk', 'u1']);
    assert.deepEqual(task.inData, { claim: 'x' });
    assert.deepEqual(
      task.audit.map((x: any) => x.to),
      ['open'],
    );
    const list = await harness.call('GET', '/v1/tasks?status=open', { token: a.token });
    assert.ok(list.body.tasks.some((t: any) => t.taskId === task.taskId));
    assert.equal(
      (await harness.call('GET', `/v1/tasks/${task.taskId}`, { token: a.token })).body.task.taskId,
      task.taskId,
    );
  });

  it('moves through allowed transitions; an illegal one is 409 with the allowed list', async () => {
    const { body } = await harness.call('POST', '/v1/tasks', { token: a.token, body: { domain: 'hunt', inData: {} } });
    const id = body.task.taskId;
    const running = await harness.call('POST', `/v1/tasks/${id}/update`, {
      token: a.token,
      body: { status: 'running', note: 'picked up' },
    });
    assert.equal(running.body.task.status, 'running');
    const done = await harness.call('POST', `/v1/tasks/${id}/update`, {
      token: a.token,
      body: { status: 'completed', outData: { answer: 42 } },
    });
    assert.equal(done.body.task.status, 'completed');
    assert.deepEqual(done.body.task.outData, { answer: 42 });
    const events = await harness.deps.db('events').where({ type: 'task.completed', subject: id });
    assert.equal(events.length, 1);
    const illegal = await harness.call('POST', `/v1/tasks/${id}/update`, {
      token: a.token,
      body: { status: 'running' },
    });
    assert.equal(illegal.status, 409);
    assert.deepEqual(illegal.body.details, { from: 'completed', to: 'running', allowed: [] });
    const audit = (await harness.call('GET', `/v1/tasks/${id}`, { token: a.token })).body.task.audit;
    assert.deepEqual(
      audit.map((x: any) => [x.from, x.to]),
      [
        [null, 'open'],
        ['open', 'running'],
        ['running', 'completed'],
      ],
    );
  });

  it('400 for a bad body, 401 without token, 404 unknown, 404 for another account', async () => {
    assert.equal(
      (await harness.call('POST', '/v1/tasks', { token: a.token, body: { domain: 'teleport', inData: {} } })).status,
      400,
    );
    assert.equal((await harness.call('POST', '/v1/tasks', { token: a.token, body: { domain: 'hunt' } })).status, 400);
    assert.equal((await harness.call('POST', '/v1/tasks', { body: { domain: 'hunt', inData: {} } })).status, 401);
    assert.equal((await harness.call('GET', '/v1/tasks/task_missing', { token: a.token })).status, 404);
    const { body } = await harness.call('POST', '/v1/tasks', { token: a.token, body: { domain: 'pay', inData: {} } });
    assert.equal((await harness.call('GET', `/v1/tasks/${body.task.taskId}`, { token: b.token })).status, 404);
    assert.equal(
      (
        await harness.call('POST', `/v1/tasks/${body.task.taskId}/update`, {
          token: b.token,
          body: { status: 'running' },
        })
      ).status,
      404,
    );
    assert.equal(
      (await harness.call('POST', `/v1/tasks/${body.task.taskId}/update`, { token: a.token, body: { status: 'done' } }))
        .status,
      400,
    );
    assert.ok(
      !(await harness.call('GET', '/v1/tasks', { token: b.token })).body.tasks.some(
        (t: any) => t.taskId === body.task.taskId,
      ),
    );
  });
});
