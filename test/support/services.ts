import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startPostgres, startRedis } from '../../scripts/local-services.js';

export interface TestServices {
  redisUrl: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** A fresh database on the server at `url` (TEST_DATABASE_URL), named for this run. */
export async function freshDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `awp_test_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Real Redis and Postgres for the suite: the ones named by TEST_REDIS_URL /
 * TEST_DATABASE_URL, else private instances on free ports in a temp dir.
 */
export async function startTestServices(): Promise<TestServices> {
  const stops: Array<() => Promise<void>> = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-test-'));
  fs.chmodSync(tmp, 0o755);
  let redisUrl = process.env.TEST_REDIS_URL;
  if (!redisUrl) {
    const redis = await startRedis(path.join(tmp, 'redis'), { persist: false });
    stops.push(redis.stop);
    redisUrl = redis.url;
  }
  let databaseUrl: string;
  if (process.env.TEST_DATABASE_URL) {
    const db = await freshDatabase(process.env.TEST_DATABASE_URL);
    stops.push(db.drop);
    databaseUrl = db.url;
  } else {
    const pgService = await startPostgres(path.join(tmp, 'pg'), { database: 'awp_test', fast: true });
    stops.push(pgService.stop);
    databaseUrl = pgService.url;
  }
  return {
    redisUrl,
    databaseUrl,
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
