import { Redis } from 'ioredis';
import type { RedisClient } from '../../shared/redis/connection.js';

export interface RedisSnapshot {
  /** INFO commandstats calls by command; commands a Lua script (BullMQ's) runs are counted too. */
  calls: Record<string, number>;
  usedMemory: number;
  keys: number;
}

/** Parses `INFO` text into its `key:value` fields. */
export function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

export async function redisSnapshot(redis: RedisClient): Promise<RedisSnapshot> {
  const stats = parseInfo(await redis.info('commandstats'));
  const calls: Record<string, number> = {};
  for (const [k, v] of Object.entries(stats)) {
    const m = /^cmdstat_(.+)$/.exec(k);
    const n = /calls=(\d+)/.exec(v);
    if (m && n) calls[m[1]!] = Number(n[1]);
  }
  const memory = parseInfo(await redis.info('memory'));
  return { calls, usedMemory: Number(memory.used_memory), keys: await redis.dbsize() };
}

/** Calls per command between two snapshots, the bench's own INFO and DBSIZE taken out. */
export function callsDelta(before: RedisSnapshot, after: RedisSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [cmd, n] of Object.entries(after.calls)) {
    const d = n - (before.calls[cmd] ?? 0) - (cmd === 'info' ? 2 : cmd === 'dbsize' ? 1 : 0);
    if (d > 0) out[cmd] = d;
  }
  return out;
}

/**
 * Watches MONITOR for the length of a batch: it tells the commands clients
 * send (each a round trip, or part of a pipeline) from the ones Lua scripts
 * run inside Redis, which INFO commandstats counts together.
 */
export async function monitorCommands(
  url: string,
): Promise<{ stop(): Promise<{ client: Record<string, number>; script: Record<string, number> }> }> {
  const conn = new Redis(url, { maxRetriesPerRequest: null });
  const monitor = await conn.monitor();
  const client: Record<string, number> = {};
  const script: Record<string, number> = {};
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const cmd = String(args[0] ?? '').toLowerCase();
    const into = source === 'lua' ? script : client;
    into[cmd] = (into[cmd] ?? 0) + 1;
  });
  return {
    async stop() {
      monitor.disconnect();
      conn.disconnect();
      return { client, script };
    },
  };
}

export const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** The largest entries of a count map, each divided by `per`, rounded to 0.01. */
export function topPer(r: Record<string, number>, per: number, n = 15): Record<string, number> {
  return Object.fromEntries(
    Object.entries(r)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => [k, Math.round((v / per) * 100) / 100]),
  );
}
