import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The master key of a local installation: DATA_DIR/master-key, made once
 * (32 random bytes, base64, readable by its owner only). Only for
 * NODE_ENV other than production; production must be given AWP_MASTER_KEY
 * (loadConfig refuses to start without it). Losing this file loses every
 * secret sealed with it.
 */
export function localMasterKey(dataDir: string): string {
  const file = path.resolve(dataDir, 'master-key');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32).toString('base64');
  try {
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return fs.readFileSync(file, 'utf8').trim(); // another process made it first
  }
  return key;
}

/** The environment with AWP_MASTER_KEY filled from the local key file when it is missing outside production. */
export function withLocalMasterKey(env: NodeJS.ProcessEnv, dataDir = env.DATA_DIR || '.data'): NodeJS.ProcessEnv {
  if (env.AWP_MASTER_KEY || env.NODE_ENV === 'production') return env;
  return { ...env, AWP_MASTER_KEY: localMasterKey(dataDir) };
}
