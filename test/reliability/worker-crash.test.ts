import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';
import { spawnEntry, waitForOutput } from '../support/spawn.js';

describe('a worker killed mid-step', function () {
  this.timeout(60_000);

  it('the run still completes, exactly once, on another worker', async () => {
    // A queue prefix of its own, so only the child and the replacement worker serve this run.
    const prefix = `{awp-crash-${randomBytes(3).toString('hex')}}`;
    const env = {
      DATABASE_URL: harness.config.DATABASE_URL!,
      REDIS_URL: harness.config.REDIS_URL!,
      QUEUE_PREFIX: prefix,
      WORKER_LOCK_MS: '1500',
      LOG_LEVEL: 'silent',
    };
    const deps = createDeps(
      harness.configWith({ QUEUE_PREFIX: prefix, WORKER_LOCK_MS: '1500' }),
      createLogger('silent'),
    );
    const child = spawnEntry('test/support/crash-worker.ts', env);
    let workers: Array<{ stop(): Promise<void> }> = [];
    try {
      await waitForOutput(child, (o) => o.includes('WORKER_READY'));
      const { accountId, tokenId } = await harness.account();
      await seedCatalog(accountId);
      const run = await submitRun(
        deps,
        { accountId, tokenId, scopes: [], plan: 'team', activated: true },
        { request: 'find the cheapest espresso machine', domainRoute: ['hunt', 'resolve'] },
      );
      await waitForOutput(child, (o) => o.includes(`STEP_STARTED ${run.id}`));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));

      workers = startWorkers(deps, ['hunt', 'resolve', 'orchestrator']);
      let status = '';
      for (let i = 0; i < 200 && status !== 'ready'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await harness.deps.db('runs').where({ id: run.id }).first()).status;
      }
      assert.equal(status, 'ready');
      const steps = await harness.deps.db('run_steps').where({ run_id: run.id }).orderBy('idx');
      assert.deepEqual(
        steps.map((s) => [s.domain, s.status]),
        [
          ['hunt', 'completed'],
          ['resolve', 'completed'],
        ],
      );
      assert.equal(steps[1].attempts, 2, 'the resolve step ran again after the crash');
      assert.equal(steps[0].attempts, 1, 'the completed hunt step was not re-run');
      const finals = await harness.deps.db('run_events').where({ run_id: run.id, type: 'final' });
      assert.equal(finals.length, 1);
      const completedEvents = await harness.deps.db('events').where({ type: 'run.completed', subject: run.id });
      assert.equal(completedEvents.length, 1);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      for (const w of workers) await w.stop();
      await deps.close();
    }
  });
});
