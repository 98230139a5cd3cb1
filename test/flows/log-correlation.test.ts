import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { registerStepHandler } from '../../jobs/steps.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

describe('log lines of a job name their run, job and account', () => {
  it('what a step logs carries runId, jobId, domain and accountId', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const capture = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const deps = createDeps(
      harness.configWith({ QUEUE_PREFIX: `{awp-logs-${randomBytes(3).toString('hex')}}` }),
      createLogger('info', {}, capture),
    );
    const workers = startWorkers(deps, ['resolve']);
    const release = registerStepHandler('resolve', async (_input, stepDeps) => {
      stepDeps.log.info({ step: 'probe' }, 'from the step');
      return { output: { ok: true }, evidence: [], conversation: ['done'] };
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
      const line = lines.find((l) => l.msg === 'from the step');
      assert.ok(line, 'the step logged');
      assert.deepEqual(
        [line.runId, line.jobId, line.domain, line.accountId],
        [run.id, `${run.id}.0.0.resolve`, 'resolve', accountId],
      );
    } finally {
      release();
      for (const w of workers) await w.stop();
      await deps.close();
    }
  });
});
