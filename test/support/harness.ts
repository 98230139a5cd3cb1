import { randomBytes } from 'node:crypto';
import { startWeb } from '../../api/server.js';
import { loadConfig, type Config } from '../../shared/config.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import { hashPassword } from '../../shared/crypto.js';
import { newId } from '../../shared/ids.js';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { createLogger } from '../../shared/log.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { startDelivery } from '../../workers/delivery.js';
import { startDomainWorkers } from '../../workers/domains.js';
import { useModules } from '../../jobs/module-registry.js';
import { MODULES } from '../../jobs/modules.js';
import type { Stoppable } from '../../shared/lifecycle.js';
import { startTestServices, type TestServices } from './services.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: string;
}

// The engine gets its modules the way every entry point hands them over; done on load, so test files may use it
// anywhere.
useModules(MODULES);

/** What every test file shares: real services, one migrated database, the app listening and workers running. */
export class Harness {
  services!: TestServices;
  deps!: Deps;
  config!: Config;
  url!: string;
  private parts: Stoppable[] = [];

  async start(): Promise<void> {
    this.services = await startTestServices();
    this.config = this.configWith({});
    this.deps = createDeps(this.config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
    await migrateLatest(this.deps.db);
    // No clock here: its minute ticks (sweeps, pump) would race with tests that drive those steps by hand.
    this.parts.push(...startDomainWorkers(this.deps), ...startDelivery(this.deps));
    const web = await startWeb(this.deps, 0, '127.0.0.1');
    this.parts.push(web);
    this.url = web.url;
  }

  /** Config of this run (fresh queue prefix), with overrides for tests that build their own app. */
  configWith(overrides: Record<string, string>): Config {
    return loadConfig({
      ...process.env,
      REDIS_URL: this.services.redisUrl,
      DATABASE_URL: this.services.databaseUrl,
      QUEUE_PREFIX: this.config?.QUEUE_PREFIX ?? `{awp-test-${randomBytes(3).toString('hex')}}`,
      // envelope encryption (shared/vault), one per run
      AWP_MASTER_KEY: this.config?.AWP_MASTER_KEY ?? randomBytes(32).toString('base64'),
      AWP_ALLOW_PRIVATE_EGRESS: '1',
      RUN_SYNC_WAIT_MS: '10000',
      WEBHOOK_RETRY_SCHEDULE_MS: '100,200,200,200,200,200,200', // the real schedule (5 s … 10 h) in miniature
      BRIDGE_ACTION_RETRY_BASE_MS: '100', // bridge action retries in miniature too
      BRIDGE_STEP_WAIT_MS: '3000', // a run's bridge step rests at awaitingAction after 3 s, not 10
      KUBERNETES_ROLLOUT_CHECK_MS: '200', // a repair run's rollout is read again every 200 ms, not 10 s
      RATE_LIMIT_PER_MINUTE: '10000', // limits are tested on their own app (test/api/limits.test.ts)
      HUNT_HOST_INTERVAL_MS: '20', // hunt's per-host spacing in miniature (1 s in production)
      MAP_CACHE_SECONDS: '0', // map answers uncached: fakes on reused ports must not answer from another's cache
      MAP_PROVIDER_INTERVAL_MS: '0', // the map's spacing is tested on its own app (test/api/hunt-map.test.ts)
      ACCOUNT_RATE_LIMIT_PER_MINUTE: '100000',
      // every dashboard test signs in from 127.0.0.1; the limit is tested on its own app
      SIGN_IN_ATTEMPTS_PER_15_MIN: '100000',
      LOG_LEVEL: 'silent',
      ...overrides,
    });
  }

  async stop(): Promise<void> {
    for (const part of this.parts.reverse()) await part.stop().catch(() => undefined);
    await this.deps?.close();
    await this.services?.stop();
  }

  async call<T = any>(method: string, path: string, opts: CallOptions = {}, base = this.url): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${base}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // non-JSON bodies (streams) stay text
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }

  /**
   * An account with a token, created directly in Postgres (activated team account unless told otherwise); in `db`, a
   * database of another app's, when given.
   */
  async account(
    opts: { activated?: boolean; plan?: 'builder' | 'team'; scopes?: string[] } = {},
    db = this.deps.db,
  ): Promise<{ accountId: string; token: string; tokenId: string }> {
    const accountId = newId('acct');
    await db('accounts').insert({
      id: accountId,
      email: `${accountId}@test.local`,
      name: 'test',
      password_hash: await hashPassword('password-123'),
      plan: opts.plan ?? 'team',
      status: opts.activated === false ? 'pending' : 'active',
    });
    const { token, row } = await issueToken(db, accountId, {
      name: 'test',
      scopes: opts.scopes ?? DEFAULT_SCOPES,
    });
    return { accountId, token, tokenId: row.id };
  }
}

export const harness = new Harness();
