/** `release` process: knex migrations to latest, then exit. */
import { loadConfig } from '../shared/config.js';
import { createDb } from '../shared/db/knex.js';
import { migrateLatest } from '../shared/db/migrate.js';

const config = loadConfig();
if (!config.DATABASE_URL) {
  console.error('DATABASE_URL is not set');
  process.exit(1);
}
const db = createDb(config.DATABASE_URL);
try {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.destroy();
}
