import { Redis } from 'ioredis';
import pg from 'pg';
import { rssMb } from '../bench/processes.js';
import type { Sample } from './logic.js';

export interface RssSample {
  name: string;
  pid: number;
  t: number;
  mb: number;
}

/**
 * Samples, every `everyS`, the RSS of each process (VmRSS from
 * /proc/<pid>/status), the connections to the soak's database
 * (pg_stat_activity, this sampler's own left out) and Redis's used memory
 * (INFO memory). A sample that fails (its service is restarting) is skipped.
 */
export class Samplers {
  readonly rss: RssSample[] = [];
  readonly pgConnections: Sample[] = [];
  readonly redisMb: Sample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private readonly redis: Redis;

  constructor(
    private readonly opts: {
      databaseUrl: string;
      redisUrl: string;
      pids: () => Record<string, number>;
      now: () => number;
    },
  ) {
    this.redis = new Redis(opts.redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      retryStrategy: () => 1000,
    });
    this.redis.on('error', () => undefined);
  }

  start(everyS: number): void {
    void this.redis.connect().catch(() => undefined);
    this.timer = setInterval(() => void this.sample(), everyS * 1000);
    void this.sample();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.redis.disconnect();
  }

  private async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const t = this.opts.now();
    try {
      for (const [name, pid] of Object.entries(this.opts.pids())) {
        const mb = rssMb(pid);
        if (mb !== null) this.rss.push({ name, pid, t, mb });
      }
      const client = new pg.Client({ connectionString: this.opts.databaseUrl, connectionTimeoutMillis: 2000 });
      client.on('error', () => undefined);
      await client
        .connect()
        .then(async () => {
          const r = await client.query(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() ' +
              'AND pid <> pg_backend_pid()',
          );
          this.pgConnections.push({ t, v: r.rows[0].n as number });
        })
        .catch(() => undefined)
        .finally(() => client.end().catch(() => undefined));
      const info = await this.redis.info('memory').catch(() => null);
      const used = info && /used_memory:(\d+)/.exec(info);
      if (used) this.redisMb.push({ t, v: Math.round(Number(used[1]) / 1024 / 10.24) / 100 });
    } finally {
      this.busy = false;
    }
  }
}
