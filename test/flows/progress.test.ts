import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { registerStepHandler } from '../../jobs/steps.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

describe('progress on a quiet step', () => {
  it('emits humanized progress events, before final, while a step says nothing', async () => {
    // Workers of their own with a short quiet period (production: 10 s).
    const deps = createDeps(
      harness.configWith({
        QUEUE_PREFIX: `{awp-progress-${randomBytes(3).toString('hex')}}`,
        PROGRESS_QUIET_MS: '200',
      }),
      createLogger('silent'),
    );
    const workers = startWorkers(deps, ['resolve', 'orchestrator']);
    const release = registerStepHandler('resolve', async () => {
      await new Promise((r) => setTimeout(r, 900));
      return { output: { quiet: true }, evidence: [], conversation: ['finally done'] };
    });
    try {
      const { accountId, tokenId } = await harness.account();
      const run = await submitRun(
        deps,
        { accountId, tokenId, scopes: [], plan: 'team', activated: true },
        { request: 'audit', domainRoute: ['resolve'] },
      );
      await until(
        () => harness.deps.db('runs').where({ id: run.id }).first(),
        (r) => r.status === 'ready',
      );
      const events = await harness.deps.db('run_events').where({ run_id: run.id }).orderBy('seq');
      const progress = events.filter((e) => e.type === 'progress');
      assert.ok(progress.length >= 2, `progress events: ${progress.length}`);
      for (const p of progress) {
        assert.equal(p.data.status, 'running');
        assert.equal(typeof p.data.elapsedSec, 'number');
        assert.match(p.data.message, /^Still working on resolve: \d+ s so far$/);
      }
      const final = events.findIndex((e) => e.type === 'final');
      assert.ok(events.findIndex((e) => e.type === 'progress') < final);
    } finally {
      release();
      for (const w of workers) await w.stop();
      await deps.close();
    }
  });

  it(
    "a step's stream messages: written while it works when it works long, with its completion when it ends " +
      'soon after',
    async () => {
      const deps = createDeps(
        harness.configWith({ QUEUE_PREFIX: `{awp-stream-${randomBytes(3).toString('hex')}}` }),
        createLogger('silent'),
      );
      const workers = startWorkers(deps, ['resolve', 'orchestrator']);
      let seenWhileWorking = 0;
      const release = registerStepHandler('resolve', async (input) => {
        await input.emit('looking');
        await new Promise((r) => setTimeout(r, 700));
        // The first message is in Postgres while the step still works.
        seenWhileWorking = (await harness.deps.db('run_events').where({ run_id: input.runId, type: 'domainStream' }))
          .length;
        await input.emit('found it');
        return { output: { done: true }, evidence: [], conversation: ['done'] };
      });
      try {
        const { accountId, tokenId } = await harness.account();
        const run = await submitRun(
          deps,
          { accountId, tokenId, scopes: [], plan: 'team', activated: true },
          { request: 'audit', domainRoute: ['resolve'] },
        );
        await until(
          () => harness.deps.db('runs').where({ id: run.id }).first(),
          (r) => r.status === 'ready',
        );
        const events = await harness.deps.db('run_events').where({ run_id: run.id }).orderBy('seq');
        assert.equal(seenWhileWorking, 1);
        const stream = events.filter((e) => e.type === 'domainStream');
        assert.deepEqual(
          stream.map((e) => e.data.message),
          ['looking', 'found it'],
        );
        const complete = events.find((e) => e.type === 'handoff' && e.data.phase === 'complete');
        // The second message went out in the completion's statement (one transaction time), right before it.
        assert.equal(new Date(stream[1].created_at).getTime(), new Date(complete.created_at).getTime());
        assert.ok(stream[1].seq < complete.seq && stream[0].seq < stream[1].seq);
      } finally {
        release();
        for (const w of workers) await w.stop();
        await deps.close();
      }
    },
  );

  it('a step over STEP_TIMEOUT_MS is aborted and fails the run with a readable reason', async () => {
    const deps = createDeps(
      harness.configWith({ QUEUE_PREFIX: `{awp-timeout-${randomBytes(3).toString('hex')}}`, STEP_TIMEOUT_MS: '300' }),
      createLogger('silent'),
    );
    const workers = startWorkers(deps, ['resolve', 'orchestrator']);
    let sawAbort = false;
    const release = registerStepHandler(
      'resolve',
      (input) =>
        new Promise((_, reject) => {
          input.signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(input.signal.reason);
          });
        }),
    );
    try {
      const { accountId, tokenId } = await harness.account();
      const run = await submitRun(
        deps,
        { accountId, tokenId, scopes: [], plan: 'team', activated: true },
        { request: 'audit', domainRoute: ['resolve'] },
      );
      const done = await until(
        () => harness.deps.db('runs').where({ id: run.id }).first(),
        (r) => r.status === 'failed',
      );
      assert.match(done.error, /resolve step failed: resolve step timed out after 300 ms/);
      assert.ok(sawAbort, 'the handler was told through its AbortSignal');
      const steps = await harness.deps.db('run_steps').where({ run_id: run.id });
      assert.deepEqual(
        steps.map((s) => [s.status, s.attempts]),
        [['failed', 1]],
        'a timeout is not retried',
      );
    } finally {
      release();
      for (const w of workers) await w.stop();
      await deps.close();
    }
  });
});
