import { benchToken, runOnce } from './awp-client.js';
import { sustained, type BenchEnv } from './env.js';
import { pgSnapshot, queryFamily, SNAPSHOT_XACTS, type PgSnapshot } from './pg-stats.js';
import { callsDelta, monitorCommands, redisSnapshot, sum, topPer } from './redis-stats.js';
import { startBareFlows } from './runs.js';

const per = (n: number, runs: number) => Math.round((n / runs) * 100) / 100;

function statementsDelta(before: PgSnapshot, after: PgSnapshot) {
  if (!before.statements || !after.statements) return null;
  const rows: Array<{ query: string; calls: number; rows: number; planMs: number; execMs: number }> = [];
  for (const [id, s] of after.statements) {
    const b = before.statements.get(id);
    const calls = s.calls - (b?.calls ?? 0);
    // Milliseconds per call: planning (every call, for a statement that is not prepared) and execution.
    const ms = (total: number, was = 0) => Math.round(((total - was) / calls) * 1000) / 1000;
    if (calls > 0)
      rows.push({
        query: s.query,
        calls,
        rows: s.rows - (b?.rows ?? 0),
        planMs: ms(s.planMs, b?.planMs),
        execMs: ms(s.execMs, b?.execMs),
      });
  }
  return rows;
}

function postgresPerRun(before: PgSnapshot, after: PgSnapshot, runs: number) {
  const byTable: Record<string, { inserted: number; updated: number; deleted: number }> = {};
  const bytesByTable: Record<string, number> = {};
  for (const [t, a] of Object.entries(after.tables)) {
    const b = before.tables[t] ?? { inserted: 0, updated: 0, deleted: 0, bytes: 0 };
    const w = {
      inserted: per(a.inserted - b.inserted, runs),
      updated: per(a.updated - b.updated, runs),
      deleted: per(a.deleted - b.deleted, runs),
    };
    if (w.inserted || w.updated || w.deleted) byTable[t] = w;
    if (a.bytes !== b.bytes) bytesByTable[t] = Math.round((a.bytes - b.bytes) / runs);
  }
  const stmts = statementsDelta(before, after);
  const families: Record<string, number> = {};
  for (const s of stmts ?? []) families[queryFamily(s.query)] = (families[queryFamily(s.query)] ?? 0) + s.calls;
  const inserted = after.tupInserted - before.tupInserted;
  const updated = after.tupUpdated - before.tupUpdated;
  const deleted = after.tupDeleted - before.tupDeleted;
  return {
    statements: stmts
      ? per(
          stmts.reduce((a, s) => a + s.calls, 0),
          runs,
        )
      : 'pg_stat_statements not loaded',
    transactions: per(after.xactCommit - before.xactCommit - SNAPSHOT_XACTS, runs),
    rollbacks: per(after.xactRollback - before.xactRollback, runs),
    rowsWritten: {
      total: per(inserted + updated + deleted, runs),
      inserted: per(inserted, runs),
      updated: per(updated, runs),
      deleted: per(deleted, runs),
    },
    rowsWrittenByTable: byTable,
    walBytes: Math.round((after.walBytes - before.walBytes) / runs),
    tableBytes: Math.round(Object.values(bytesByTable).reduce((a, b) => a + b, 0)),
    tableBytesByTable: bytesByTable,
    statementsByFamily: topPer(families, runs, 40),
    topStatements: (stmts ?? [])
      .sort((a, b) => b.calls - a.calls)
      .slice(0, 25)
      .map((s) => ({
        calls: per(s.calls, runs),
        rows: per(s.rows, runs),
        planMs: s.planMs,
        execMs: s.execMs,
        query: s.query.replace(/\s+/g, ' ').slice(0, 160),
      })),
  };
}

/** Redis commands and memory over a batch of `total` of `task`, with MONITOR telling client commands from scripts'. */
async function redisPer(env: BenchEnv, total: number, inFlight: number, task: () => Promise<unknown>) {
  const before = await redisSnapshot(env.deps.redis);
  const monitor = await monitorCommands(env.redisUrl);
  await sustained(total, inFlight, task);
  const seen = await monitor.stop();
  const after = await redisSnapshot(env.deps.redis);
  const calls = callsDelta(before, after);
  // MONITOR and its own connection show up as commands too; they are the bench's, not the engine's.
  delete seen.client.monitor;
  return {
    commands: per(sum(calls), total),
    clientCommands: per(sum(seen.client), total),
    commandsInsideScripts: per(sum(seen.script), total),
    byCommand: topPer(calls, total),
    clientByCommand: topPer(seen.client, total),
    usedMemoryBytes: Math.round((after.usedMemory - before.usedMemory) / total),
    keys: per(after.keys - before.keys, total),
  };
}

/**
 * What one 3-step run costs: over a batch of BENCH_COUNT_RUNS (200) sync
 * runs, BENCH_COUNT_IN_FLIGHT (8) at a time, the deltas of Postgres's
 * counters (pg_stat_database, pg_stat_user_tables, pg_stat_statements, WAL
 * position, table sizes) and Redis's (INFO commandstats, MONITOR, used_memory,
 * DBSIZE), divided by the runs. The same Redis figures for bare BullMQ
 * 3-step flows stand beside them.
 */
export async function benchCounts(env: BenchEnv) {
  const runs = Number(process.env.BENCH_COUNT_RUNS ?? 200);
  const inFlight = Number(process.env.BENCH_COUNT_IN_FLIGHT ?? 8);
  const token = await benchToken(env);
  for (let i = 0; i < 5; i++) await runOnce(env, token);

  const pgBefore = await pgSnapshot(env.databaseUrl, env.statements);
  const redis = await redisPer(env, runs, inFlight, () => runOnce(env, token));
  const pgAfter = await pgSnapshot(env.databaseUrl, env.statements);

  const bare = await startBareFlows(env.redisUrl);
  for (let i = 0; i < 5; i++) await bare.once();
  const bareRedis = await redisPer(env, runs, inFlight, () => bare.once());
  await bare.close();
  return {
    runs,
    inFlight,
    perRun: { postgres: postgresPerRun(pgBefore, pgAfter, runs), redis },
    bareBullmq3StepFlowPerFlow: { redis: bareRedis },
    notes: [
      'counts are deltas over the batch divided by the runs; Postgres counters include any background work ' +
        'in the bench database (autovacuum) during the batch',
      `Redis memory and keys include completed jobs kept for ` +
        `QUEUE_KEEP_COMPLETED_SECONDS=${env.deps.config.QUEUE_KEEP_COMPLETED_SECONDS}`,
      'commands counts what Redis executed (INFO commandstats, Lua-internal calls included); clientCommands ' +
        'what clients sent (MONITOR)',
    ],
  };
}
