import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBinaries, startPostgres, startRedis, type LocalService } from '../local-services.js';

/**
 * The soak's private Redis and Postgres, each restartable on its own port
 * (the processes reconnect to the same URL). Redis comes back empty unless
 * `redisPersist` (an append-only file in its directory); Postgres is stopped
 * with `pg_ctl -m fast` (open connections cut, committed data kept).
 */
export interface SoakServices {
  redisUrl: string;
  databaseUrl: string;
  dir: string;
  restartRedis(downMs: number): Promise<void>;
  restartPostgres(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startServices(opts: { redisPersist: boolean }): Promise<SoakServices> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-soak-'));
  fs.chmodSync(dir, 0o755);
  const bins = ensureBinaries();
  const redisDir = path.join(dir, 'redis');
  const pgDir = path.join(dir, 'pg');
  let redis = await startRedis(redisDir, { persist: opts.redisPersist, bin: bins.redis });
  const pgOpts = { database: 'awp_soak', fast: process.env.SOAK_PG_FAST === '1', pgBin: bins.pgBin };
  let pg: LocalService & { port: number } = await startPostgres(pgDir, pgOpts);
  return {
    redisUrl: redis.url,
    databaseUrl: pg.url,
    dir,
    async restartRedis(downMs) {
      await redis.stop();
      await sleep(downMs);
      redis = await startRedis(redisDir, { persist: opts.redisPersist, port: redis.port, bin: bins.redis });
    },
    async restartPostgres(downMs) {
      await pg.stop();
      await sleep(downMs);
      pg = await startPostgres(pgDir, { ...pgOpts, port: pg.port });
    },
    async stop() {
      await redis.stop();
      await pg.stop();
      if (process.env.SOAK_KEEP !== '1') fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
