/**
 * Operator CLI: re-wraps every account's data key (and the platform's) from
 * the current master key (AWP_MASTER_KEY) to a new one, in one transaction.
 * Sealed values are not touched: their data keys stay the same.
 *   AWP_MASTER_KEY_NEW=$(openssl rand -base64 32) npm run master-key:rotate
 * Without AWP_MASTER_KEY_NEW a key is generated. Then set AWP_MASTER_KEY to
 * the new key and AWP_MASTER_KEY_PREVIOUS to the old one on every process,
 * restart them, and drop AWP_MASTER_KEY_PREVIOUS once all run the new key.
 * Locally (the key came from DATA_DIR/master-key) the file is updated and the
 * old key kept beside it as master-key.previous. Prints the new key id, and
 * the new key only when it generated it and there is no local file to hold it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { rotateMasterKey } from '../shared/vault/index.js';
import { withScriptDb } from './support/script-db.js';

await withScriptDb(async (db, config) => {
  const current = config.AWP_MASTER_KEY!;
  const given = process.env.AWP_MASTER_KEY_NEW;
  const next = given || randomBytes(32).toString('base64');
  const file = path.resolve(config.DATA_DIR, 'master-key');
  const local = !process.env.AWP_MASTER_KEY && fs.existsSync(file);
  try {
    const { rewrapped, masterKeyId } = await rotateMasterKey(db, current, next);
    if (local) {
      fs.writeFileSync(`${file}.previous`, `${current}\n`, { mode: 0o600 });
      fs.writeFileSync(file, `${next}\n`, { mode: 0o600 });
    }
    console.log(JSON.stringify({ rewrapped, masterKeyId, ...(given || local ? {} : { newMasterKey: next }) }));
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
});
