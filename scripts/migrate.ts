/**
 * `release` process: knex migrations to latest, then the plaintext secrets
 * of rows written before envelope encryption are sealed (a migration cannot:
 * SQL does not know AWP_MASTER_KEY), then exit.
 */
import { withScriptDb } from './support/script-db.js';
import { migrateLatest } from '../shared/db/migrate.js';
import { sealPlaintextSecrets } from '../shared/vault/backfill.js';

await withScriptDb(async (db, config) => {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  const sealed = await sealPlaintextSecrets({ db, config });
  if (Object.keys(sealed).length > 0) console.log(`sealed plaintext secrets: ${JSON.stringify(sealed)}`);
});
