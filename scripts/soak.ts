/**
 * `npm run soak`: the service as the Procfile runs it (2 web, 2 worker, 1
 * delivery, 1 clock, each its own process) on a private Redis and Postgres,
 * under a mixed load for SOAK_DURATION_S (20 min; SOAK_QUICK=1: 1 min) while
 * faults are injected (SIGKILLs, a Redis and a Postgres restart, a webhook
 * receiver outage); then a drain, and checks over Postgres, the delivery
 * ledger, the answers and the samples. Writes a markdown report
 * (SOAK_REPORT, default .data/soak-report.md), prints it, and exits 1 when a
 * check failed. Settings: scripts/soak/config.ts. Not part of `npm test`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createDb } from '../shared/db/knex.js';
import { migrateLatest } from '../shared/db/migrate.js';
import { runChecks } from './soak/checks.js';
import { Client } from './soak/client.js';
import { soakConfig } from './soak/config.js';
import { runFaults } from './soak/faults.js';
import { driveLoad } from './soak/load.js';
import { faultPlan } from './soak/logic.js';
import { LAYOUT, ProcessSet } from './soak/processes.js';
import { runStatuses, unsettled } from './soak/queries.js';
import { startReceiver } from './soak/receiver.js';
import { renderReport } from './soak/report.js';
import { Samplers } from './soak/samplers.js';
import { startServices } from './soak/services.js';
import { SOAK_ACCOUNT, setUpFixtures, soakToken } from './soak/setup.js';
import { Tracker } from './soak/tracker.js';

const config = soakConfig();
const log = (msg: string) => process.stderr.write(`soak: ${msg}\n`);
let t0 = Date.now();
const now = () => (Date.now() - t0) / 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const startedAt = new Date().toISOString();
log(`starting Redis and Postgres`);
const services = await startServices({ redisPersist: config.redisPersist });
const db = createDb(services.databaseUrl);
const receiver = await startReceiver(config.webhookTimeoutMs);
const procs = new ProcessSet(
  {
    ...process.env,
    NODE_ENV: 'development',
    REDIS_URL: services.redisUrl,
    DATABASE_URL: services.databaseUrl,
    LOG_LEVEL: 'info',
    QUEUE_PREFIX: '{awp-soak}',
    AWP_MASTER_KEY: randomBytes(32).toString('base64'),
    AWP_ALLOW_PRIVATE_EGRESS: '1',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ACCOUNT_RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_RETRY_SCHEDULE_MS: config.webhookRetryMs,
    WEBHOOK_TIMEOUT_MS: String(config.webhookTimeoutMs),
    // A step lost with Redis's data is found by the stuck-run sweep after STEP_TIMEOUT_MS + 60 s: short, to see it.
    STEP_TIMEOUT_MS: process.env.STEP_TIMEOUT_MS ?? '30000',
    DB_POOL_MAX: String(config.dbPoolMax),
  },
  { tsx: config.tsx, logDir: path.resolve('.data/soak-logs'), restartAfterS: config.restartAfterS, now },
);
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  log('interrupted: stopping');
  void procs.stop(5_000).finally(() => services.stop().finally(() => process.exit(130)));
});

let stopped = false;
/** The soak from its processes to its report; its exit code (1: a check failed). */
async function soak(): Promise<number> {
  await migrateLatest(db);
  const token = await soakToken(db);
  log(`starting the Procfile's processes (logs in .data/soak-logs/)`);
  await procs.start();
  const samplers = new Samplers({
    databaseUrl: services.databaseUrl,
    redisUrl: services.redisUrl,
    pids: () => procs.pids(),
    now,
  });
  samplers.start(config.sampleEveryS);
  const api = new Client(() => procs.webUrls(), token, now);
  const fixtures = await setUpFixtures(api, receiver);
  const tracker = new Tracker();
  log(`domains: ${fixtures.domains.join(', ')}; load for ${config.durationS} s at ${config.rate}/s`);

  t0 = Date.now();
  const plan = faultPlan(config.durationS, config);
  let actionsEndedS = 0;
  const [load, faulted] = await Promise.all([
    driveLoad(api, tracker, fixtures, { ...config, log }).finally(() => (actionsEndedS = Math.round(now()))),
    runFaults(plan, { procs, services, receiver, now, startedAt: 0 }, log),
  ]);
  // The schedule would keep firing through the drain: paused, so the drain ends on what the load started.
  if (fixtures.scheduleId) await api.call('setup', 'POST', `/v1/schedules/${fixtures.scheduleId}/pause`, { body: {} });

  log(`load done; draining (at most ${config.drainS} s)`);
  const drainStart = Date.now();
  let drained = false;
  while (!interrupted && (Date.now() - drainStart) / 1000 < config.drainS) {
    const left = await unsettled(db, SOAK_ACCOUNT, 3600).catch(() => null);
    // Pending firings and matches are waited for two minutes (the clock's sweeps run every minute), then judged.
    const waitedS = (Date.now() - drainStart) / 1000;
    if (left && left.runs + left.deliveries === 0 && (left.automation === 0 || waitedS > 120)) {
      drained = true;
      break;
    }
    if (left) log(`drain: ${left.runs} runs moving, ${left.deliveries} deliveries due, ${left.automation} pending`);
    await sleep(5000);
  }
  const drainS = Math.round((Date.now() - drainStart) / 1000);
  await samplers.stop();
  log('stopping the processes (SIGTERM)');
  const exitCodes = await procs.stop();
  stopped = true;

  const { checks, rss } = await runChecks({
    db,
    accountId: SOAK_ACCOUNT,
    config,
    tracker,
    fixtures,
    receiver,
    records: api.records,
    windows: faulted.windows,
    samplers,
    lives: procs.lives,
    exitCodes,
    processCount: LAYOUT.length,
  });
  const report = renderReport({
    config,
    startedAt,
    loadS: config.durationS,
    actionsEndedS,
    drainS,
    drained,
    checks,
    faults: faulted.faults,
    outcomes: tracker.outcomes,
    runStatuses: await runStatuses(db, SOAK_ACCOUNT),
    receiverAnswers: receiver.answers,
    records: api.records,
    rss,
    pgConnections: samplers.pgConnections,
    redisMb: samplers.redisMb,
    load,
  });
  fs.mkdirSync(path.dirname(path.resolve(config.reportFile)), { recursive: true });
  fs.writeFileSync(config.reportFile, report);
  console.log(report);
  log(`report written to ${config.reportFile}`);
  return checks.every((c) => c.ok) ? 0 : 1;
}

// Whatever happens (a check's query failing, a process that never starts), nothing the soak started outlives it.
let code = 2;
try {
  code = await soak();
} catch (err) {
  log(`failed: ${(err as Error).stack}`);
} finally {
  if (!stopped) await procs.stop(5_000).catch(() => undefined);
  await receiver.stop().catch(() => undefined);
  await db.destroy().catch(() => undefined);
  await services.stop();
}
process.exit(code);
