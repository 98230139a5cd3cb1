/** `release` process: knex migrations to latest, then exit. */
import { withScriptDb } from './support/script-db.js';
import { migrateLatest } from '../shared/db/migrate.js';

await withScriptDb(async (db) => {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
});
