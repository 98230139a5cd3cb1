import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { BenchEnv } from './env.js';

/**
 * CPU time by process role over a phase of the bench: on a machine where
 * every process shares two cores, a figure is bounded by the CPU all of them
 * spend per run, and this says which process spends it.
 */

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

function stat(pid: number): { ppid: number; ticks: number } | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces; the fields after its closing parenthesis do not.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** A process and its children (Postgres: the postmaster and its backends; a Node process has none). */
function family(root: number): number[] {
  const children = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => stat(pid)?.ppid === root);
  return [root, ...children];
}

/** CPU ticks of the role's processes, read now; Postgres's with its backends (it opens them as pools grow). */
function ticks(role: string, pids: number[]): number {
  return (role === 'postgres' ? pids.flatMap(family) : pids).reduce((sum, pid) => sum + (stat(pid)?.ticks ?? 0), 0);
}

/** The pids of each role: the bench process, the API and the workers (when they run apart), Postgres and Redis. */
export async function rolePids(env: BenchEnv): Promise<Record<string, number[]>> {
  const roles: Record<string, number[]> = { 'bench (client)': [process.pid] };
  for (const [role, pid] of Object.entries(env.pids)) if (pid !== process.pid) roles[role] = [pid];
  const backend = Number((await env.deps.db.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const postmaster = stat(backend)?.ppid;
  if (postmaster) roles.postgres = [postmaster];
  const info = await env.deps.redis.info('server');
  const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  if (redisPid) roles.redis = [redisPid];
  return roles;
}

/** Runs `fn` and returns its value with the CPU milliseconds each role spent per operation (`ops` operations). */
export async function cpuPerOp<T>(
  roles: Record<string, number[]>,
  ops: number,
  fn: () => Promise<T>,
): Promise<{ value: T; cpuMsPerOp: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(roles).map(([role, pids]) => [role, ticks(role, pids)]));
  const value = await fn();
  const perOp: Record<string, number> = {};
  let total = 0;
  for (const [role, pids] of Object.entries(roles)) {
    const ms = ((ticks(role, pids) - before[role]!) * 1000) / TICKS_PER_SECOND / ops;
    perOp[role] = Math.round(ms * 100) / 100;
    total += ms;
  }
  perOp.total = Math.round(total * 100) / 100;
  return { value, cpuMsPerOp: perOp };
}
