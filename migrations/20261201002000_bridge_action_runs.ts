import type { Knex } from 'knex';
import { buildIndexesConcurrently } from '../shared/db/concurrent-indexes.js';

/**
 * Issue 31: bridge actions a run performs, and actions a provider holds.
 *
 * - `run_id`: the run whose bridge step made the action; `run_read_at`: when that run had the action's answer (the
 *   step read it, or the action's end resumed the run resting at `awaitingAction`). A partial index keeps the
 *   sweep's read of ended actions whose run has not had them to the few that are left.
 * - `awaitingProvider` joins the statuses under way (a provider took the call, its callback is to come, and the
 *   action times out at its deadline): the partial index of those is built again with it.
 *
 * The columns are nullable without a default: no rewrite. The indexes are built CONCURRENTLY, outside a
 * transaction (as in 20261130001000_pending_sweeps.ts), so the table keeps taking writes meanwhile.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, sql: string]> = [
  [
    'bridge_actions_under_way_v2',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS bridge_actions_under_way_v2 ON bridge_actions (id)
     WHERE status IN ('queued', 'running', 'retrying', 'awaitingClient', 'awaitingProvider')`,
  ],
  [
    'bridge_actions_run_unread',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS bridge_actions_run_unread ON bridge_actions (id)
     WHERE run_id IS NOT NULL AND run_read_at IS NULL`,
  ],
];

export async function up(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw("SET LOCAL lock_timeout = '10s'");
    await trx.raw(
      `ALTER TABLE bridge_actions ADD COLUMN IF NOT EXISTS run_id text,
         ADD COLUMN IF NOT EXISTS run_read_at timestamptz`,
    );
  });
  await buildIndexesConcurrently(knex, INDEXES);
  await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS bridge_actions_under_way');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS bridge_actions_under_way ON bridge_actions (id)
     WHERE status IN ('queued', 'running', 'retrying', 'awaitingClient')`,
  );
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await knex.raw('ALTER TABLE bridge_actions DROP COLUMN IF EXISTS run_read_at, DROP COLUMN IF EXISTS run_id');
}
