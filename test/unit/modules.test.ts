import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMAINS } from '../../jobs/domains.js';
import { buildModuleRegistry, modules, vocabularyDrift } from '../../jobs/module-registry.js';
import { MODULES, SERVICE_MODULES } from '../../jobs/modules.js';
import { DOMAIN_NAMES } from '../../shared/domain-names.js';
import { BRIDGE_ACTIONS_QUEUE, PAY_PROVIDER_QUEUE, PORTAL_ACTIONS_QUEUE } from '../../shared/queues.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = path.join(dir, name);
    return statSync(abs).isDirectory() ? filesUnder(abs) : [abs];
  });
}

/** SQL in the folder: a knex table call (`db('runs')`, `trx('waitpoints')`). */
const SQL = /\b(db|trx|knex)\(\s*'[a-z_]+'/;
/** The engine's own tables (runs, run_steps, waitpoints) have their repositories in shared/db/. */
const TABLES_IN_SHARED_DB = new Set(['orchestrator']);

/** What docs/architecture.md "Adding a domain" says a module has; [] when it has all of it. */
function missingParts(name: string, answersHttp: boolean, isDomain: boolean, hasStep: boolean): string[] {
  const dir = path.join(ROOT, 'jobs', name);
  if (!existsSync(dir)) return [`jobs/${name}/ does not exist`];
  const files = filesUnder(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.relative(dir, f));
  const missing: string[] = [];
  for (const part of ['index.ts', 'module.ts', 'README.md'])
    if (!existsSync(path.join(dir, part))) missing.push(`jobs/${name}/${part}`);
  if (answersHttp && !files.some((f) => /(^|[/-])routes\.ts$/.test(f)))
    missing.push(`jobs/${name}/routes.ts (it answers HTTP)`);
  const storesData = files.some((f) => SQL.test(readFileSync(path.join(dir, f), 'utf8')));
  if (storesData && !TABLES_IN_SHARED_DB.has(name) && !files.some((f) => /(^|[/-])repository\.ts$/.test(f)))
    missing.push(`jobs/${name}/repository.ts (it stores data)`);
  if (isDomain && hasStep && !files.includes('step.ts')) missing.push(`jobs/${name}/step.ts (a domain with a step)`);
  return missing;
}

describe('the module lists (docs/architecture.md, Adding a module)', () => {
  it('every domain and service module has the parts the recipe names', () => {
    const missing = [
      ...DOMAINS.map((d) => missingParts(d.name, d.routes.length > 0, true, Boolean(d.step))),
      ...SERVICE_MODULES.map((s) => missingParts(s.name, s.routes.length > 0, false, false)),
    ].flat();
    assert.deepEqual(missing, []);
  });

  it('names each module once, and the constant vocabulary (shared/domain-names.ts) matches the domains', () => {
    const names = [...DOMAINS.map((d) => d.name), ...SERVICE_MODULES.map((s) => s.name)];
    assert.deepEqual(
      names.filter((n, i) => names.indexOf(n) !== i),
      [],
    );
    assert.deepEqual(
      DOMAINS.map((d) => d.name),
      [...DOMAIN_NAMES],
    );
    assert.deepEqual(vocabularyDrift(DOMAINS), []);
  });

  it('refuses to build a registry whose domains drift from the constant vocabulary', () => {
    assert.throws(
      () => buildModuleRegistry(DOMAINS.slice(1), SERVICE_MODULES),
      /shared\/domain-names\.ts does not match the module list: domain names/,
    );
    const renamed = {
      ...DOMAINS[11],
      statuses: { resting: ['awaitingApproval'], final: { shipped: 'succeeded' as const } },
    };
    assert.throws(() => buildModuleRegistry([...DOMAINS.slice(0, 11), renamed], SERVICE_MODULES), /final statuses/);
  });

  it('refuses a module list where an engine hook is missing or provided twice', () => {
    const withoutAudit = SERVICE_MODULES.filter((m) => m.name !== 'audit');
    assert.throws(() => buildModuleRegistry(DOMAINS, withoutAudit), /No module provides the engine hooks audit$/);
    const twice = [...SERVICE_MODULES, { name: 'shadowAudit', routes: [], provides: { audit: async () => {} } }];
    assert.throws(() => buildModuleRegistry(DOMAINS, twice), /audit is provided by both audit and shadowAudit/);
  });

  it("is the registry the engine was handed, with delivery's run routes among the domain routes", () => {
    assert.equal(modules(), MODULES);
    const run = MODULES.routes.find((r) => r.path === '/v1/delivery/run');
    assert.equal(run?.domain, 'delivery');
    assert.ok(MODULES.domain('delivery')?.routes.some((r) => r.path === '/v1/delivery/run'));
    assert.deepEqual(
      Object.keys(MODULES.processors),
      [
        BRIDGE_ACTIONS_QUEUE,
        PORTAL_ACTIONS_QUEUE,
        PAY_PROVIDER_QUEUE,
        'kubernetes-rollouts',
        'delivery-ci',
        'events',
        'webhooks',
        'inbox-notify',
      ],
      'bridge serves its own action and portal queues, pay its provider calls, kubernetes its rollout checks, ' +
        'delivery its CI follow, the events module the outbox fan-out and the dispatcher, the inbox its notifications',
    );
  });
});
