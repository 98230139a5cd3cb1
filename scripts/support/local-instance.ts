import fs from 'node:fs';
import path from 'node:path';

/**
 * How the operator scripts (`npm run token:admin`, `migrate`, the key rotations) find the Redis and Postgres that a
 * running `npm start` started: it writes DATA_DIR/local.json once it serves, and removes it when it stops. The file
 * holds connection URLs (credentials, in general), so only its owner may read it. A file whose process is gone (a
 * crash, a SIGKILL) is stale and ignored.
 */
export interface LocalInstance {
  pid: number;
  startedAt: string;
  DATABASE_URL?: string;
  REDIS_URL?: string;
}

const URL_KEYS = ['DATABASE_URL', 'REDIS_URL'] as const;

export const localInstanceFile = (dataDir: string) => path.resolve(dataDir, 'local.json');

/** Writes the file for this process (replacing a stale one whole); the returned function removes it again. */
export function writeLocalInstance(dataDir: string, urls: Pick<LocalInstance, 'DATABASE_URL' | 'REDIS_URL'>) {
  const file = localInstanceFile(dataDir);
  const record: LocalInstance = { pid: process.pid, startedAt: new Date().toISOString(), ...urls };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return () => {
    // Another `npm start` may have taken the file over since: only this process's own record is removed.
    if (readRecord(file)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
}

function readRecord(file: string): LocalInstance | null {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalInstance;
    return Number.isInteger(record.pid) ? record : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running local instance of DATA_DIR, or null when there is none or its process is gone. */
export function readLocalInstance(dataDir: string): LocalInstance | null {
  const record = readRecord(localInstanceFile(dataDir));
  return record && alive(record.pid) ? record : null;
}

/** The environment with DATABASE_URL and REDIS_URL filled from the running local instance where they are unset. */
export function withLocalInstance(env: NodeJS.ProcessEnv, dataDir = env.DATA_DIR || '.data'): NodeJS.ProcessEnv {
  if (URL_KEYS.every((k) => env[k])) return env;
  const local = readLocalInstance(dataDir);
  if (!local) return env;
  const filled = Object.fromEntries(URL_KEYS.flatMap((k) => (!env[k] && local[k] ? [[k, local[k]]] : [])));
  return { ...env, ...filled };
}
