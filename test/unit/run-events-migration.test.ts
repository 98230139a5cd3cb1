import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { validateMigrations } from '../../jobs/migration/validate.js';
import { conversionSteps } from '../../migrations/20261129005000_run_events_partitions.js';
import { ROOT } from '../support/spawn.js';

/** The conversion as Postgres receives it: each step in its own transaction, a CONCURRENTLY build alone. */
const STEPS = conversionSteps(new Date(Date.UTC(2026, 11, 7))).map((s) => ({
  concurrently: Boolean(s.concurrently),
  sql: (s.concurrently ? s.sql : ['BEGIN', ...s.sql, 'COMMIT']).map((q) => `${q};`).join('\n'),
}));

/**
 * What the checks may still say, and why it is accepted: no statement_timeout (the CONCURRENTLY builds and the
 * VALIDATE scan the whole table beside the traffic, for as long as that takes); the rename (a swap: in the same
 * transaction the new table takes the name); before a CONCURRENTLY build, no lock_timeout (it cannot run in a
 * transaction, so SET LOCAL would not hold, and its SHARE UPDATE EXCLUSIVE lets reads and writes go on); squawk's
 * preference for bigint (the column stays what it was).
 */
const ACCEPTED = new Set(['require-statement-timeout', 'renaming-table']);
const ACCEPTED_CONCURRENTLY = new Set([...ACCEPTED, 'require-lock-timeout']);
const SQUAWK_ACCEPTED = new Set(['require-statement-timeout', 'renaming-table', 'prefer-bigint-over-int']);

function squawk(file: string): Promise<Array<{ rule_name: string; line: number }>> {
  return new Promise((resolve, reject) =>
    // squawk exits 1 when it finds something; its JSON is on stdout either way.
    execFile(path.join(ROOT, 'node_modules/.bin/squawk'), ['--reporter', 'json', file], (err, out) =>
      out ? resolve(JSON.parse(out)) : reject(err),
    ),
  );
}

describe('migration: run_events partitioned by week', () => {
  it("passes the service's own migration check: nothing blocks, and each step times its locks", async () => {
    const result = await validateMigrations({
      migrations: STEPS.map((s, i) => ({ id: `step ${i}`, sql: s.sql })),
    } as never);
    assert.notEqual(result.verdict, 'block');
    const unexpected = result.migrations.flatMap((m, i) =>
      m.findings
        .filter((f) => !(STEPS[i]!.concurrently ? ACCEPTED_CONCURRENTLY : ACCEPTED).has(f.ruleId))
        .map((f) => `${m.id}: ${f.ruleId}: ${f.message}`),
    );
    assert.deepEqual(unexpected, []);
  });

  it('squawk finds nothing about locks, rewrites or destruction', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'awp-squawk-'));
    try {
      const file = path.join(dir, 'run_events_partitions.sql');
      writeFileSync(file, STEPS.map((s) => s.sql).join('\n'));
      const hits = await squawk(file);
      assert.deepEqual(
        hits.filter((h) => !SQUAWK_ACCEPTED.has(h.rule_name)).map((h) => `${h.rule_name} (line ${h.line})`),
        [],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
