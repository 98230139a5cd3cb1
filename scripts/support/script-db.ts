import { loadConfig, type Config } from '../../shared/config.js';
import { createDb, type Knex } from '../../shared/db/knex.js';
import { withLocalMasterKey } from '../../shared/vault/local-key.js';
import { localInstanceFile, withLocalInstance } from './local-instance.js';

/**
 * Runs an operator script against DATABASE_URL and closes the pool after,
 * whatever happens. Unset, DATABASE_URL (and the master key) come from the
 * running `npm start` of DATA_DIR; with neither it says so and exits 1.
 */
export async function withScriptDb(fn: (db: Knex, config: Config) => Promise<void>): Promise<void> {
  const config = loadConfig(withLocalInstance(withLocalMasterKey(process.env)));
  if (!config.DATABASE_URL) {
    console.error(
      `DATABASE_URL is not set, and no running \`npm start\` was found (${localInstanceFile(config.DATA_DIR)}): ` +
        'start the service with `npm start` in another terminal, or set DATABASE_URL',
    );
    process.exit(1);
  }
  const db = createDb(config.DATABASE_URL);
  try {
    await fn(db, config);
  } finally {
    await db.destroy();
  }
}
