import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { harness, type ApiResponse } from '../support/harness.js';
import { plantedRepo } from '../support/planted-secrets.js';
import { pollUntilRest } from '../support/runs.js';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

/**
 * The migration and security steps end to end: HTTP → queue → worker →
 * Postgres, for "is this migration safe?" and "scan this repo for leaked
 * keys"; and, with the API and the workers in processes of their own logging
 * at debug level, no planted secret in any answer or any log line.
 */
describe('migration and security steps in runs', function () {
  this.timeout(90_000);
  let token: string;
  before(async () => {
    ({ token } = await harness.account());
  });
  const run = (body: unknown) => harness.call('POST', '/v1/orchestrator/run', { token, body });

  it(
    '"is this migration safe?" validates the migrations ' + 'the run carries, as evidence bound to their lines',
    async () => {
      const res = await run({
        request: 'is this migration safe?',
        metadata: {
          migrations: [
            {
              id: '0012_users_email',
              sql: "SET lock_timeout = '2s';\nALTER TABLE users ALTER COLUMN email SET NOT NULL;",
            },
          ],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.status, res.body.route], ['ready', ['migration']]);
      const out = res.body.results.migration;
      assert.equal(out.verdict, 'block');
      assert.equal(out.executed, false);
      assert.deepEqual(
        out.migrations[0].findings.map((f: any) => f.ruleId),
        ['setting-not-null', 'require-statement-timeout'],
      );
      assert.deepEqual(
        [res.body.proofCard.evidenceStatus, res.body.proofCard.recommendedRestraint],
        ['sourceBound', 'escalateBeforeActing'],
      );
      assert.match(res.body.proofCard.openQuestions[0], /^Verdict block/);
      const exported = await harness.call('POST', `/v1/audit/proofCards/${res.body.proofCard.cardId}/export`, {
        token,
        body: {},
      });
      const evidence = exported.body.ledgerEntry.decision.evidence;
      assert.ok(
        evidence.some(
          (e: any) => /^setting-not-null/.test(e.claim) && e.source === 'migration 0012_users_email, line 2',
        ),
        JSON.stringify(evidence),
      );
      assert.ok(res.body.agentConversation.some((l: string) => /Verdict block/.test(l)));
    },
  );

  it('reads SQL written in the request itself, and fails the run readably when there is none', async () => {
    const inline = await run({
      request: 'is this migration safe? ALTER TABLE orders ADD COLUMN paid_at timestamptz DEFAULT clock_timestamp();',
      domainRoute: ['migration'],
    });
    assert.equal(inline.body.status, 'ready', inline.text);
    assert.deepEqual(
      inline.body.results.migration.migrations[0].findings.map((f: any) => f.ruleId),
      [
        'adding-field-with-volatile-default',
        'require-lock-timeout',
        'require-statement-timeout',
        'prefer-robust-stmts',
      ],
    );
    const none = await run({ request: 'is this migration safe?', domainRoute: ['migration'] });
    assert.equal(none.body.status, 'failed');
    assert.match(none.body.error, /no migration to validate/);
  });

  it('"scan this repo for leaked keys" finds the planted keys; neither the run nor its events show one', async () => {
    const { files, planted } = plantedRepo();
    const res = await run({ request: 'scan this repo for leaked keys', metadata: { files } });
    assert.deepEqual([res.body.status, res.body.route], ['ready', ['security']], res.text);
    const out = res.body.results.security;
    assert.equal(out.verdict, 'block');
    for (const p of planted)
      assert.ok(
        out.findings.some((f: any) => f.kind === p.kind && f.file === p.file && f.line === p.line),
        `${p.kind} found`,
      );
    const stored = await pollUntilRest(token, res.body.runId);
    const events = await harness.call('GET', `/v1/runs/${res.body.runId}/events`, {
      token,
      headers: { accept: 'application/json' },
    });
    for (const p of planted) {
      for (const text of [res.text, JSON.stringify(stored), events.text])
        assert.ok(!text.includes(p.value), `${p.kind} value never shown`);
    }
  });

  it('no planted secret reaches a log line of the API or of the worker (debug level), nor an answer', async () => {
    const { files, planted } = plantedRepo();
    const prefix = `{awp-i15-${randomBytes(3).toString('hex')}}`;
    const env = {
      DATABASE_URL: harness.config.DATABASE_URL!,
      REDIS_URL: harness.config.REDIS_URL!,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'debug',
      RATE_LIMIT_PER_MINUTE: '10000',
    };
    const api = spawnEntry('api/server.ts', { ...env, PORT: '0', HOST: '127.0.0.1' });
    const worker = spawnEntry('workers/domains.ts', { ...env, WORKER_QUEUES: 'security,migration' });
    const answers: ApiResponse[] = [];
    try {
      await waitForOutput(api, (out) => out.includes('"msg":"started"'));
      await waitForOutput(worker, (out) => out.includes('domain workers started'));
      const base = /"url":"(http:[^"]+)"/.exec(api.output())![1]!;
      const call = async (path: string, body: unknown) => {
        const res = await harness.call('POST', path, { token, body }, base);
        answers.push(res);
        return res;
      };
      assert.equal((await call('/v1/security/validate', { files })).body.verdict, 'block');
      const viaRun = await call('/v1/orchestrator/run', {
        request: 'scan this repo for leaked keys',
        metadata: { files },
      });
      assert.equal(viaRun.body.status, 'ready', viaRun.text);
      const literal = planted.find((p) => p.kind === 'githubToken')!.value;
      assert.equal(
        (await call('/v1/security/secrets/check', { refs: [{ name: 'pasted', ref: literal }] })).body.results[0].status,
        'literal',
      );
      assert.equal(
        (
          await call('/v1/orchestrator/run', {
            request: 'scan this repo for leaked keys',
            metadata: { files: { 'a.env': 42 } },
          })
        ).body.status,
        'failed',
      );
    } finally {
      assert.equal(await stopWith(api, 'SIGTERM'), 0, api.output());
      assert.equal(await stopWith(worker, 'SIGTERM'), 0, worker.output());
    }
    const logged = `${api.output()}\n${worker.output()}`;
    assert.ok(logged.split('\n').filter((l) => l.includes('"msg":"request"')).length >= 4, 'the requests were logged');
    for (const p of planted) {
      assert.ok(!logged.includes(p.value), `${p.kind}: not in any log line`);
      assert.ok(!answers.some((r) => r.text.includes(p.value)), `${p.kind}: not in any answer`);
    }
  });
});
