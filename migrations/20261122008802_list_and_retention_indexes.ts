import type { Knex } from 'knex';

/**
 * Indexes in the shape of the queries that use them (scripts/bench/plan-queries.ts
 * lists every one; `npm run bench` with BENCH_SECTIONS=plans EXPLAINs them on
 * 1,000,000 rows):
 * - lists page newest first on `id` within an account (shared/db/page.ts), so
 *   each list gets `(account_id, id)` and each filter `(account_id, <filter>, id)`:
 *   the index gives both the rows and their order, and a page reads `limit` entries;
 * - deliveries are read by event, by retry chain and by parent; a pull
 *   worker's claim filters by account before the due time;
 * - retention finds what is past its time through partial indexes that hold
 *   only what it still has to do.
 * Built CONCURRENTLY (so outside a transaction): a live table keeps taking writes while they build.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, definition: string]> = [
  ['runs_account_page', 'runs (account_id, id)'],
  ['runs_account_status_page', 'runs (account_id, status, id)'],
  ['runs_account_conversation_page', 'runs (account_id, conversation_id, id)'],
  ['runs_events_untrimmed', 'runs (finished_at) WHERE finished_at IS NOT NULL AND events_trimmed_at IS NULL'],
  ['runs_steps_untrimmed', 'runs (finished_at) WHERE finished_at IS NOT NULL AND steps_trimmed_at IS NULL'],
  ['tasks_account_page', 'tasks (account_id, id)'],
  ['tasks_account_status_page', 'tasks (account_id, status, id)'],
  ['events_account_page', 'events (account_id, id)'],
  ['events_account_type_page', 'events (account_id, type, id)'],
  ['events_account_unacked_page', 'events (account_id, id) WHERE acked_at IS NULL'],
  ['deliveries_account_page', 'deliveries (account_id, id)'],
  ['deliveries_account_status_page', 'deliveries (account_id, status, id)'],
  ['deliveries_subscription_page', 'deliveries (subscription_id, id)'],
  ['deliveries_event', 'deliveries (event_id, id)'],
  ['deliveries_chain', 'deliveries (root_id, attempt)'],
  ['deliveries_parent', 'deliveries (parent_id) WHERE parent_id IS NOT NULL'],
  ['deliveries_pull_ready', "deliveries (account_id, mode, next_attempt_at, id) WHERE status = 'queued' AND NOT held"],
  ['deliveries_finished', 'deliveries (finished_at) WHERE finished_at IS NOT NULL'],
  ['subscriptions_account_page', 'subscriptions (account_id, id)'],
  ['catalog_account_page', 'catalog_listings (account_id, id)'],
  ['outbound_mails_created', 'outbound_mails (created_at)'],
  ['outbound_mails_with_body', 'outbound_mails (created_at) WHERE text_body IS NOT NULL'],
];

/**
 * Indexes the ones above make redundant (a prefix of a new one) or that no
 * query uses; each costs every write. `(account_id, created_at)` stays on
 * runs and events: their lists filter by a creation-time window.
 */
const REPLACED: Array<[name: string, definition: string]> = [
  ['runs_account_id_conversation_id_index', 'runs (account_id, conversation_id)'],
  ['tasks_account_id_created_at_index', 'tasks (account_id, created_at)'],
  ['events_account_id_type_index', 'events (account_id, type)'],
  ['deliveries_account_id_created_at_index', 'deliveries (account_id, created_at)'],
  ['deliveries_root_id_index', 'deliveries (root_id)'],
  ['subscriptions_account_id_index', 'subscriptions (account_id)'],
  ['catalog_account', 'catalog_listings (account_id)'],
];

/**
 * A CONCURRENTLY build that was interrupted leaves an invalid index behind; IF NOT EXISTS would keep it, so drop it
 * first.
 */
async function dropIfInvalid(knex: Knex, name: string): Promise<void> {
  const invalid = await knex.raw(
    'SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid',
    [name],
  );
  if (invalid.rows.length > 0) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}

async function create(knex: Knex, [name, definition]: [string, string]): Promise<void> {
  await dropIfInvalid(knex, name);
  await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${definition}`);
}

export async function up(knex: Knex): Promise<void> {
  for (const index of INDEXES) await create(knex, index);
  for (const [name] of REPLACED) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const index of REPLACED) await create(knex, index);
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
