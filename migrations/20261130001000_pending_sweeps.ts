import type { Knex } from 'knex';
import { buildIndexesConcurrently } from '../shared/db/concurrent-indexes.js';

/**
 * Issue 30, item 4 (nothing pending forever): what is committed and then handed to a queue or a run start is found
 * again by a clock sweep when the hand-over was lost.
 *
 * - `signal_matches` and `schedule_firings` still `pending` a while after their last touch: the sweeps read them by
 *   `updated_at` through a partial index of the pending ones (few at any time).
 * - `bridge_actions` under way (`queued`, `running`, `retrying`, `awaitingClient`): the sweep checks that each has its
 *   job; a partial index keeps that read to the unsettled ones.
 * - `portal_actions` run on a queue now: `attempts` counts the runs asked for (the job id of each is
 *   `<id>.<attempt>`; 0 is a created action nobody asked to run yet) and `updated_at` says since when an action
 *   rests in its status.
 *
 * The columns have constant (or stable) defaults: no rewrite. The indexes are built CONCURRENTLY, outside a
 * transaction (as in 20261129002900_run_admissions.ts), so the tables keep taking writes meanwhile.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, sql: string]> = [
  [
    'signal_matches_pending',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS signal_matches_pending ON signal_matches (updated_at)
     WHERE outcome = 'pending'`,
  ],
  [
    'schedule_firings_pending_since',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS schedule_firings_pending_since ON schedule_firings (updated_at)
     WHERE outcome = 'pending'`,
  ],
  [
    'bridge_actions_under_way',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS bridge_actions_under_way ON bridge_actions (id)
     WHERE status IN ('queued', 'running', 'retrying', 'awaitingClient')`,
  ],
  [
    'portal_actions_under_way',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS portal_actions_under_way ON portal_actions (updated_at)
     WHERE status IN ('queued', 'running') AND attempts > 0`,
  ],
];

export async function up(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw("SET LOCAL lock_timeout = '10s'");
    await trx.raw(
      `ALTER TABLE portal_actions ADD COLUMN IF NOT EXISTS attempts integer NOT NULL DEFAULT 0,
         ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT now()`,
    );
  });
  await buildIndexesConcurrently(knex, INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await knex.raw('ALTER TABLE portal_actions DROP COLUMN IF EXISTS updated_at, DROP COLUMN IF EXISTS attempts');
}
