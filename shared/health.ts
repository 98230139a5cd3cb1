import type { Deps } from './deps.js';

export type Health = { postgres: 'up' | 'down'; redis: 'up' | 'down' };

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

/** Pings Postgres and Redis (1 s each); a dependency that does not answer is `down`. */
export async function checkHealth(deps: Pick<Deps, 'db' | 'redis'>): Promise<Health> {
  const [pg, redis] = await Promise.allSettled([
    withTimeout(deps.db.raw('select 1'), 1000),
    withTimeout(deps.redis.ping(), 1000),
  ]);
  return { postgres: pg.status === 'fulfilled' ? 'up' : 'down', redis: redis.status === 'fulfilled' ? 'up' : 'down' };
}
