import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** Runs knex migrations to latest; safe to call from several processes (knex takes a lock). */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = await db.migrate.latest({ directory: MIGRATIONS_DIR, loadExtensions: ['.ts'] });
  return applied as string[];
}
