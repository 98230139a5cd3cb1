import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { createRunEventPartitions } from './run-event-partitions.js';

/** `migrations/` at the project root: two levels up from this file as source, three as compiled (`dist/shared/db`). */
const MIGRATIONS_DIR =
  [2, 3]
    .map((up) => path.resolve(path.dirname(fileURLToPath(import.meta.url)), ...Array(up).fill('..'), 'migrations'))
    .find((d) => fs.existsSync(d)) ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/**
 * Runs knex migrations to latest; safe to call from several processes (knex takes a lock). Then makes sure the coming
 * weeks have their run_events partitions (the clock's sweep does too; a release does it as well, so a database whose
 * clock has not run for weeks still takes events).
 */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = await db.migrate.latest({ directory: MIGRATIONS_DIR, loadExtensions: ['.ts'] });
  await createRunEventPartitions(db, new Date());
  return applied as string[];
}

/**
 * Migration files this code ships that the database has not applied (readiness: a process must not serve a schema it
 * does not know).
 */
export async function pendingMigrations(db: Knex): Promise<string[]> {
  const shipped = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const applied = new Set((await db('knex_migrations').select('name')).map((r: { name: string }) => r.name));
  return shipped.filter((f) => !applied.has(f));
}
