import type { Knex } from 'knex';

/**
 * run_events becomes partitioned (the layout and why: shared/db/run-event-partitions.ts), online:
 *
 * - the existing table is not copied: it becomes the first week partition, `run_events_until_<cutover>`, covering
 *   everything before a cutover Monday one to two weeks ahead, and keeps taking writes until then;
 * - what attaching it needs is prepared first without blocking writers: the `kept` column (a constant default:
 *   no rewrite), the new key and the finals index built CONCURRENTLY, and a CHECK constraint that matches the
 *   partition's bounds, added NOT VALID and validated apart (SHARE UPDATE EXCLUSIVE), so ATTACH does not scan;
 * - the new parent is built empty beside it, then one short transaction swaps: the old key for the new one, the
 *   attach, and the two renames. Running code keeps working: writers never name `kept`, readers read the same
 *   name, and prepared statements are re-planned by name after the rename.
 *
 * Every step waits at most LOCK_TIMEOUT for its lock, and every step can run again: an interrupted migration is
 * finished by running it again. It must be finished before the cutover: from then the CHECK refuses new events in
 * the old table (the cutover is in the constraint's name, so a second run keeps the first run's).
 *
 * Self-contained (no import of shared/db/run-event-partitions.ts): a migration must do the same thing whatever
 * the code around it becomes.
 */
export const config = { transaction: false };

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
const WEEKS_AHEAD = 4;
const LOCK_TIMEOUT = "SET LOCAL lock_timeout = '5s'";

const weekStart = (at: Date) => {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS);
};
const ymd = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
const time = (d: Date) => `'${d.toISOString()}'::timestamptz`;

export interface Step {
  /** Statements of the step, in order: in one transaction, unless `concurrently` (a CONCURRENTLY build, alone). */
  sql: string[];
  concurrently?: boolean;
  /** A query that returns a row when the step is done already (for statements without IF NOT EXISTS). */
  doneWhen?: string;
}

/** The conversion, for a cutover Monday (exported for test/unit/run-events-migration.test.ts, which lints it). */
export function conversionSteps(cutover: Date): Step[] {
  const until = `run_events_until_${ymd(cutover)}`;
  const weeks = Array.from({ length: WEEKS_AHEAD + 1 }, (_, i) => new Date(cutover.getTime() + i * WEEK_MS));
  return [
    { sql: [LOCK_TIMEOUT, 'ALTER TABLE run_events ADD COLUMN IF NOT EXISTS kept boolean NOT NULL DEFAULT false'] },
    {
      concurrently: true,
      sql: [
        'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS run_events_until_pkey ON run_events (run_id, seq, kept, ' +
          'created_at)',
      ],
    },
    {
      concurrently: true,
      sql: [
        'CREATE INDEX CONCURRENTLY IF NOT EXISTS run_events_until_finals ON run_events (run_id, seq) WHERE ' +
          "type = 'final'",
      ],
    },
    {
      concurrently: true,
      sql: ['CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_unfinished ON runs (created_at) WHERE finished_at IS NULL'],
    },
    {
      sql: [
        LOCK_TIMEOUT,
        `ALTER TABLE run_events ADD CONSTRAINT ${until}_range CHECK (NOT kept AND created_at < ${time(cutover)}) ` +
          'NOT VALID',
      ],
      doneWhen: `SELECT 1 FROM pg_constraint WHERE conname = '${until}_range'`,
    },
    // SHARE UPDATE EXCLUSIVE: the scan runs beside reads and writes.
    { sql: [LOCK_TIMEOUT, `ALTER TABLE run_events VALIDATE CONSTRAINT ${until}_range`] },
    {
      sql: [
        LOCK_TIMEOUT,
        `CREATE TABLE IF NOT EXISTS run_events_partitioned (
           run_id text NOT NULL, seq integer NOT NULL, account_id text NOT NULL, type text NOT NULL,
           data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), kept boolean NOT NULL DEFAULT false,
           CONSTRAINT run_events_partitioned_pkey PRIMARY KEY (run_id, seq, kept, created_at),
           CONSTRAINT run_events_run_id_foreign FOREIGN KEY (run_id) REFERENCES runs (id) ON DELETE CASCADE
         ) PARTITION BY LIST (kept)`,
        'CREATE TABLE IF NOT EXISTS run_events_kept PARTITION OF run_events_partitioned FOR VALUES IN (true)',
        'CREATE TABLE IF NOT EXISTS run_events_by_week PARTITION OF run_events_partitioned FOR VALUES IN (false) ' +
          'PARTITION BY RANGE (created_at)',
        "CREATE INDEX IF NOT EXISTS run_events_by_week_finals ON run_events_by_week (run_id, seq) WHERE type = 'final'",
        ...weeks.map(
          (w) =>
            `CREATE TABLE IF NOT EXISTS run_events_w${ymd(w)} PARTITION OF run_events_by_week ` +
            `FOR VALUES FROM (${time(w)}) TO (${time(new Date(w.getTime() + WEEK_MS))})`,
        ),
      ],
    },
    {
      sql: [
        LOCK_TIMEOUT,
        'ALTER TABLE run_events DROP CONSTRAINT run_events_pkey, ' +
          'ADD CONSTRAINT run_events_until_pkey PRIMARY KEY USING INDEX run_events_until_pkey',
        `ALTER TABLE run_events_by_week ATTACH PARTITION run_events FOR VALUES FROM (MINVALUE) TO (${time(cutover)})`,
        `ALTER TABLE run_events RENAME TO ${until}`,
        'ALTER TABLE run_events_partitioned RENAME TO run_events',
        'ALTER INDEX run_events_partitioned_pkey RENAME TO run_events_pkey',
      ],
    },
  ];
}

async function partitioned(knex: Knex): Promise<boolean> {
  const r = await knex.raw("SELECT relkind FROM pg_class WHERE oid = 'run_events'::regclass");
  return r.rows[0]?.relkind === 'p';
}

/** The cutover of an earlier, interrupted run of this migration, else the Monday one to two weeks from now. */
async function cutoverOf(knex: Knex): Promise<Date> {
  const r = await knex.raw(
    "SELECT conname FROM pg_constraint WHERE conrelid = 'run_events'::regclass AND conname ~ '^run_events_until_'",
  );
  const earlier = /^run_events_until_(\d{4})(\d{2})(\d{2})_range$/.exec(r.rows[0]?.conname ?? '');
  if (earlier) return new Date(Date.UTC(Number(earlier[1]), Number(earlier[2]) - 1, Number(earlier[3])));
  return new Date(weekStart(new Date(Date.now() + WEEK_MS)).getTime() + WEEK_MS);
}

/** Drops an index an interrupted CONCURRENTLY build left invalid, so IF NOT EXISTS does not keep it. */
async function dropInvalid(knex: Knex, names: string[]): Promise<void> {
  const r = await knex.raw(
    'SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ANY(?) ' +
      'AND NOT i.indisvalid',
    [names],
  );
  for (const { relname } of r.rows as Array<{ relname: string }>)
    await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${relname}`);
}

export async function up(knex: Knex): Promise<void> {
  if (await partitioned(knex)) return;
  await dropInvalid(knex, ['run_events_until_pkey', 'run_events_until_finals', 'runs_unfinished']);
  for (const step of conversionSteps(await cutoverOf(knex))) {
    if (step.doneWhen && (await knex.raw(step.doneWhen)).rows.length > 0) continue;
    if (step.concurrently) await knex.raw(step.sql[0]!);
    else
      await knex.transaction(async (trx) => {
        for (const sql of step.sql) await trx.raw(sql);
      });
  }
}

/** Back to one table (copies every row: for development databases, not for a large production table). */
export async function down(knex: Knex): Promise<void> {
  if (!(await partitioned(knex))) return;
  await knex.transaction(async (trx) => {
    await trx.raw(`CREATE TABLE run_events_plain (
      run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE, seq integer NOT NULL, account_id text NOT NULL,
      type text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT run_events_plain_pkey PRIMARY KEY (run_id, seq))`);
    await trx.raw(
      'INSERT INTO run_events_plain (run_id, seq, account_id, type, data, created_at) ' +
        'SELECT run_id, seq, account_id, type, data, created_at FROM run_events',
    );
    await trx.raw('DROP TABLE run_events');
    await trx.raw('ALTER TABLE run_events_plain RENAME TO run_events');
    await trx.raw('ALTER INDEX run_events_plain_pkey RENAME TO run_events_pkey');
    await trx.raw('DROP INDEX IF EXISTS runs_unfinished');
  });
}
