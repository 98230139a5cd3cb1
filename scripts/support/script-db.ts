import { loadConfig, type Config } from '../../shared/config.js';
import { createDb, type Knex } from '../../shared/db/knex.js';
import { withLocalMasterKey } from '../../shared/vault/local-key.js';

/**
 * Runs an operator script against DATABASE_URL and closes the pool after,
 * whatever happens; without DATABASE_URL it says so and exits 1.
 */
export async function withScriptDb(fn: (db: Knex, config: Config) => Promise<void>): Promise<void> {
  const config = loadConfig(withLocalMasterKey(process.env));
  if (!config.DATABASE_URL) {
    console.error('DATABASE_URL is not set (npm start prints the local one)');
    process.exit(1);
  }
  const db = createDb(config.DATABASE_URL);
  try {
    await fn(db, config);
  } finally {
    await db.destroy();
  }
}
