/**
 * `npm start`: everything in one process for local use. When REDIS_URL or
 * DATABASE_URL is unset it starts a private redis-server / Postgres with data
 * under DATA_DIR (.data/), loopback only, installing the Debian packages if
 * they are missing. It builds the dashboard when dashboard/dist is missing.
 * Then migrations, then web + worker + delivery + clock; once it serves, it
 * writes DATA_DIR/local.json so the operator scripts find the local services.
 */
import path from 'node:path';
import { startWeb } from '../api/server.js';
import { loadConfig } from '../shared/config.js';
import { createDeps } from '../shared/deps.js';
import { migrateLatest } from '../shared/db/migrate.js';
import { createLogger } from '../shared/log.js';
import { startClock } from '../workers/clock.js';
import { startDelivery } from '../workers/delivery.js';
import { startDomainWorkers } from '../workers/domains.js';
import { onShutdown, type Stoppable } from '../shared/lifecycle.js';
import { ensureBinaries, startPostgres, startRedis } from './local-services.js';
import { ensureDashboardBuilt } from './build-dashboard.js';
import { sealPlaintextSecrets } from '../shared/vault/backfill.js';
import { withLocalMasterKey } from '../shared/vault/local-key.js';
import { writeLocalInstance } from './support/local-instance.js';
import { startTelemetry } from '../shared/telemetry/start.js';

// Outside production a missing AWP_MASTER_KEY is generated once under DATA_DIR (production refuses to start without
// one).
const processEnv = withLocalMasterKey(process.env);
const base = loadConfig(processEnv);
const log = createLogger(base.LOG_LEVEL, { process: 'all' });
const parts: Stoppable[] = [];
onShutdown(log, () => parts, base.SHUTDOWN_GRACE_MS);

await ensureDashboardBuilt((m) => log.info(m));

const env: Record<string, string> = {};
const dataDir = path.resolve(base.DATA_DIR);
const localRedis = !base.REDIS_URL && !base.REDIS_CLUSTER_NODES;
if (localRedis || !base.DATABASE_URL) {
  const bins = ensureBinaries((m) => log.info(m));
  if (localRedis) {
    const redis = await startRedis(path.join(dataDir, 'redis'), { persist: true, bin: bins.redis });
    parts.push({ name: 'local redis', stop: redis.stop });
    env.REDIS_URL = redis.url;
    log.info({ url: redis.url }, 'local redis started');
  }
  if (!base.DATABASE_URL) {
    const pg = await startPostgres(path.join(dataDir, 'postgres'), { database: 'awp', fast: false, pgBin: bins.pgBin });
    parts.push({ name: 'local postgres', stop: pg.stop });
    env.DATABASE_URL = pg.url;
    log.info({ url: pg.url }, 'local postgres started');
  }
}

const config = loadConfig({ ...processEnv, ...env });
// Before the deps, so it stops after them (parts stop in reverse) and flushes the spans of the shutdown too.
const telemetry = await startTelemetry(config, 'all', log);
if (telemetry) parts.push(telemetry);
const deps = createDeps(config, log);
parts.push({ name: 'deps', stop: () => deps.close() });
const applied = await migrateLatest(deps.db);
log.info({ applied, sealed: await sealPlaintextSecrets(deps) }, 'migrations done');
parts.push(...startDomainWorkers(deps), ...startDelivery(deps), ...startClock(deps));
parts.push(await startWeb(deps));
if (Object.keys(env).length > 0) {
  // Stopped first (parts stop in reverse): a script started during shutdown finds no instance rather than a dying one.
  const remove = writeLocalInstance(dataDir, env);
  parts.push({ name: 'local instance file', stop: () => Promise.resolve(remove()) });
  log.info({ file: path.join(dataDir, 'local.json') }, 'npm run token:admin, migrate and the key rotations use it');
}
