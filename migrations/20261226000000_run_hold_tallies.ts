import type { Knex } from 'knex';

/**
 * How many runs an account holds, kept by Postgres itself so that a held submission need not count them.
 *
 * Counting the held runs at every held submission (for the hard cap and the position it answers) read every held
 * row of the account: a burst of 5,000 cost each later submission milliseconds of Postgres, the whole burst
 * quadratic time. One tally row per account would make every held submission wait for the one before it to commit
 * (its row lock lasts until commit). So the tally is striped: 64 rows per account, a run counted on the stripe
 * its id hashes to, and the sum of those rows is the account's hold. Triggers keep it, on every path that holds,
 * admits, cancels, expires or deletes a run, in the same transaction as the change: it cannot drift from the runs.
 *
 * The triggers and the first tally are made in one transaction: creating a trigger locks `runs` against writes
 * until commit, so no run is held or admitted between the trigger and the count it starts from.
 */
const HELD = (row: 'NEW' | 'OLD') => `(${row}.held_at IS NOT NULL AND ${row}.status = 'queued')`;

const TRIGGERS: Array<[name: string, event: string, when: string]> = [
  ['runs_hold_tally_insert', 'INSERT', HELD('NEW')],
  ['runs_hold_tally_update', 'UPDATE OF held_at, status', `(${HELD('OLD')} IS DISTINCT FROM ${HELD('NEW')})`],
  ['runs_hold_tally_delete', 'DELETE', HELD('OLD')],
];

export async function up(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw("SET LOCAL lock_timeout = '10s'");
    await trx.raw(
      `CREATE TABLE IF NOT EXISTS run_hold_tallies (
         account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
         stripe smallint NOT NULL,
         held integer NOT NULL DEFAULT 0,
         PRIMARY KEY (account_id, stripe))`,
    );
    await trx.raw(
      `CREATE OR REPLACE FUNCTION run_hold_tally() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP <> 'INSERT' AND ${HELD('OLD')} THEN
           UPDATE run_hold_tallies SET held = held - 1
           WHERE account_id = OLD.account_id AND stripe = hashtext(OLD.id) & 63;
         END IF;
         IF TG_OP <> 'DELETE' AND ${HELD('NEW')} THEN
           INSERT INTO run_hold_tallies (account_id, stripe, held) VALUES (NEW.account_id, hashtext(NEW.id) & 63, 1)
           ON CONFLICT (account_id, stripe) DO UPDATE SET held = run_hold_tallies.held + 1;
         END IF;
         RETURN NULL;
       END $$`,
    );
    // WHEN clauses keep the function off every write that neither holds nor releases a run.
    for (const [name, event, when] of TRIGGERS) {
      await trx.raw(`DROP TRIGGER IF EXISTS ${name} ON runs`);
      await trx.raw(
        `CREATE TRIGGER ${name} AFTER ${event} ON runs FOR EACH ROW WHEN ${when} EXECUTE FUNCTION run_hold_tally()`,
      );
    }
    await trx.raw('DELETE FROM run_hold_tallies');
    await trx.raw(
      `INSERT INTO run_hold_tallies (account_id, stripe, held)
       SELECT account_id, hashtext(id) & 63, count(*) FROM runs WHERE held_at IS NOT NULL AND status = 'queued'
       GROUP BY 1, 2`,
    );
    // The first design's tally. migration-safe: dropping-column: no release since holds were counted reads or writes
    // it (the admission SQL names its columns), so code still running during the rollout cannot miss it.
    await trx.raw('ALTER TABLE run_admissions DROP COLUMN IF EXISTS held');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of TRIGGERS) await knex.raw(`DROP TRIGGER IF EXISTS ${name} ON runs`);
  await knex.raw('DROP FUNCTION IF EXISTS run_hold_tally()');
  await knex.raw('DROP TABLE IF EXISTS run_hold_tallies');
  await knex.raw('ALTER TABLE run_admissions ADD COLUMN IF NOT EXISTS held integer NOT NULL DEFAULT 0');
}
