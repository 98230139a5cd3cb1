import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { registerStepHandler } from '../../jobs/steps.js';
import { insertListings } from '../../jobs/hunt/catalog-repository.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startPostgres } from '../../scripts/local-services.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

const RESTING = ['ready', 'failed', 'canceled', 'NEEDS_INPUT'];

describe('Postgres restarted under a stream of runs', function () {
  this.timeout(120_000);

  it('every accepted run comes to rest, once, when Postgres goes away for seconds mid-flight', async () => {
    // A Postgres of this test's own, so stopping it disturbs nothing else.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-pg-restart-'));
    fs.chmodSync(dir, 0o755);
    const pgDir = path.join(dir, 'pg');
    let pg = await startPostgres(pgDir, { database: 'awp', fast: true });
    const deps = createDeps(
      harness.configWith({ DATABASE_URL: pg.url, QUEUE_PREFIX: `{awp-pgr-${process.pid}}`, JOB_RETRY_BASE_MS: '200' }),
      createLogger('silent'),
    );
    const release = registerStepHandler('resolve', async () => {
      await new Promise((r) => setTimeout(r, 150));
      return { output: { audited: true }, evidence: [], conversation: ['audited'] };
    });
    const workers = startWorkers(deps, ['hunt', 'resolve', 'orchestrator']);
    try {
      await migrateLatest(deps.db);
      const accountId = 'acct_pgrestart';
      await deps.db('accounts').insert({
        id: accountId,
        email: 'pg@test.local',
        name: 'pg',
        password_hash: 'x',
        plan: 'team',
        status: 'active',
      });
      await insertListings(deps.db, accountId, [
        {
          title: 'Espresso machine',
          price: 150,
          fees: 0,
          currency: 'USD',
          vendor: 'CafeCo',
          url: 'https://shop.example/e',
          tags: [],
        },
      ]);
      const principal = { accountId, tokenId: 'tok_x', scopes: [], plan: 'team' as const, activated: true };
      const runIds: string[] = [];
      for (let i = 0; i < 12; i++)
        runIds.push(
          (
            await submitRun(deps, principal, {
              request: 'find the cheapest espresso machine',
              domainRoute: ['hunt', 'resolve'],
            })
          ).id,
        );

      await pg.stop();
      await new Promise((r) => setTimeout(r, 6000));
      pg = await startPostgres(pgDir, { database: 'awp', fast: true, port: pg.port });

      const rows = await until(
        () =>
          deps
            .db('runs')
            .whereIn('id', runIds)
            .select('id', 'status')
            .catch(() => []),
        (rs) => rs.length === runIds.length && rs.every((r: { status: string }) => RESTING.includes(r.status)),
        90_000,
      );
      assert.deepEqual(
        rows.filter((r: { status: string }) => r.status !== 'ready'),
        [],
        'every run completed',
      );
      const finals = await deps.db('run_events').whereIn('run_id', runIds).andWhere({ type: 'final' }).select('run_id');
      assert.equal(finals.length, runIds.length, 'one final event per run');
    } finally {
      release();
      for (const w of workers) await w.stop().catch(() => undefined);
      await deps.close();
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
