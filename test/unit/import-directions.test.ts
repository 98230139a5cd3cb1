import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeEdge, findCycles, loadImportGraph, type ImportEdge } from '../support/import-graph.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAYERS = ['api', 'jobs', 'workers', 'shared', 'scripts'];

/** Imports flow down: api and workers → jobs → shared; api and workers never reach each other. */
const FORBIDDEN: Record<string, string[]> = {
  shared: ['api', 'jobs', 'workers'],
  jobs: ['api', 'workers'],
  api: ['workers'],
  workers: ['api'],
};

/**
 * Pure domain logic stays free of I/O libraries, so it can be tested and reused without a queue, database or server.
 */
const IO_PACKAGES = ['bullmq', 'knex', 'pg', 'ioredis', 'koa'];
const isIoPackage = (spec: string) =>
  spec.startsWith('@koa/') || IO_PACKAGES.some((p) => spec === p || spec.startsWith(`${p}/`));

/**
 * Known violations in files this rule's author may not change yet. Each one
 * is an edge (importing file → imported file) taken out of the graph for
 * every check, and each must still exist: a fixed one fails the test until
 * it is removed here.
 */
const KNOWN_EXCEPTIONS: Array<{ from: string; to: string; why: string }> = [];

const layerOf = (file: string) => file.split('/')[0]!;

/** The engine: it is handed the modules (jobs/module-registry.ts, set by the entry points) and imports none of them. */
const ENGINE = [
  'jobs/orchestrator/',
  'jobs/clock/',
  'jobs/steps.ts',
  'jobs/registry.ts',
  'jobs/events/registry.ts',
  'jobs/module-registry.ts',
  'jobs/domain.ts',
  'jobs/step.ts',
  'jobs/engine-hooks.ts',
  'jobs/approval-gates.ts',
];
const MODULE_LISTS = ['jobs/domains.ts', 'jobs/modules.ts'];
/**
 * Module folders the engine may not import: every folder of jobs/ with a module.ts (the domains and the service
 * modules), except the orchestrator's, which is the engine's own (it answers the run routes).
 */
const MODULE_FOLDERS = fs
  .readdirSync(path.join(ROOT, 'jobs'), { withFileTypes: true })
  .filter(
    (d) => d.isDirectory() && d.name !== 'orchestrator' && fs.existsSync(path.join(ROOT, 'jobs', d.name, 'module.ts')),
  )
  .map((d) => `jobs/${d.name}/`);
const isEngine = (file: string) => ENGINE.some((e) => (e.endsWith('/') ? file.startsWith(e) : file === e));

/** An engine file importing a list or a domain folder, or reaching a list through anything it imports. */
function engineViolations(edges: ImportEdge[]): string[] {
  const direct = edges
    .filter(
      (e) =>
        isEngine(e.from) &&
        e.to &&
        (MODULE_LISTS.includes(e.to) || MODULE_FOLDERS.some((d) => e.to!.startsWith(d) && !isEngine(e.to!))),
    )
    .map(
      (e) =>
        `${describeEdge(e)}: the engine imports no module and no module list; read the registry ` +
        `(jobs/module-registry.ts)`,
    );
  const next = new Map<string, string[]>();
  for (const e of edges) if (e.to) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const reached: string[] = [];
  for (const start of new Set(edges.map((e) => e.from).filter(isEngine))) {
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0)
      for (const to of next.get(queue.shift()!) ?? [])
        if (!seen.has(to)) {
          seen.add(to);
          queue.push(to);
        }
    for (const list of MODULE_LISTS) if (seen.has(list)) reached.push(`${start} reaches ${list} through its imports`);
  }
  return [...direct, ...reached];
}

function directionViolations(edges: ImportEdge[]): string[] {
  return edges
    .filter((e) => e.to && FORBIDDEN[layerOf(e.from)]?.includes(layerOf(e.to)))
    .map((e) => `${describeEdge(e)}: ${layerOf(e.from)}/ must not import from ${layerOf(e.to!)}/`);
}

/** A module's SQL: its repository.ts or *-repository.ts; the engine's own tables in shared/db/. */
const isRepository = (file: string) => file.startsWith('shared/db/') || /(^|[/-])repository\.ts$/.test(file);

/** Repositories return rows, counts or null; the service that calls one decides which HTTP error that is. */
function repositoryViolations(edges: ImportEdge[]): string[] {
  return edges
    .filter((e) => isRepository(e.from) && e.to === 'shared/errors.ts')
    .map(
      (e) =>
        `${describeEdge(e)}: repositories throw no HTTP errors; return null or a result and let the service decide`,
    );
}

function logicViolations(edges: ImportEdge[]): string[] {
  return edges
    .filter((e) => path.basename(e.from) === 'logic.ts' && !e.to && isIoPackage(e.spec))
    .map((e) => `${describeEdge(e)}: logic.ts files stay pure (no ${IO_PACKAGES.join(', ')}, @koa/*)`);
}

function cycleViolations(edges: ImportEdge[]): string[] {
  return findCycles(edges).map((c) => `import cycle: ${c.join(' -> ')}`);
}

function withoutExceptions(edges: ImportEdge[]): ImportEdge[] {
  return edges.filter((e) => !KNOWN_EXCEPTIONS.some((x) => x.from === e.from && x.to === e.to));
}

const edge = (from: string, spec: string, to: string | null, typeOnly = false): ImportEdge => ({
  from,
  line: 1,
  spec,
  to,
  typeOnly,
});

describe('import directions', function () {
  // Starting the TypeScript compiler process and parsing the project takes about a second.
  this.timeout(60_000);
  let files: string[];
  let edges: ImportEdge[];
  before(() => {
    ({ files, edges } = loadImportGraph(ROOT, LAYERS));
  });

  it('reads every layer of the project', () => {
    for (const layer of LAYERS)
      assert.ok(
        files.some((f) => f.startsWith(`${layer}/`)),
        `no .ts file found under ${layer}/`,
      );
    // A parse that silently found nothing would pass every rule below.
    assert.ok(
      edges.some((e) => e.from === 'api/server.ts' && e.to === 'api/app.ts'),
      'api/server.ts → api/app.ts not seen: the import reader is broken',
    );
  });

  it(
    'shared imports nothing from api/jobs/workers; jobs nothing from api/workers; api and workers not each ' + 'other',
    () => {
      assert.deepEqual(directionViolations(withoutExceptions(edges)), []);
    },
  );

  it('logic.ts files import no bullmq, knex, pg, ioredis, koa or @koa/*', () => {
    assert.deepEqual(logicViolations(edges), []);
  });

  it('repositories (shared/db) do not import the HTTP error factories', () => {
    assert.deepEqual(repositoryViolations(withoutExceptions(edges)), []);
  });

  it(
    'the engine (orchestrator, clock, steps, queue and event registries) imports no domain module and neither ' +
      'module list',
    () => {
      assert.deepEqual(engineViolations(edges), []);
    },
  );

  it('has no import cycles among project files', () => {
    assert.deepEqual(cycleViolations(withoutExceptions(edges)), []);
  });

  it('every known exception still exists (remove the ones that were fixed)', () => {
    const stale = KNOWN_EXCEPTIONS.filter((x) => !edges.some((e) => e.from === x.from && e.to === x.to));
    assert.deepEqual(
      stale.map((x) => `${x.from} -> ${x.to} is no longer imported: remove it from KNOWN_EXCEPTIONS`),
      [],
    );
  });

  describe('the checks themselves', () => {
    it('name the file, line and import of a wrong-way import, type-only ones included', () => {
      const found = directionViolations([
        edge('shared/db/x.ts', '../../api/app.js', 'api/app.ts', true),
        edge('jobs/a/b.ts', '../../workers/clock.js', 'workers/clock.ts'),
        edge('workers/w.ts', '../api/app.js', 'api/app.ts'),
        edge('api/routes/r.ts', '../../jobs/a/service.js', 'jobs/a/service.ts'),
      ]);
      assert.deepEqual(found, [
        "shared/db/x.ts:1 imports '../../api/app.js' (api/app.ts) [type-only]: shared/ must not import from api/",
        "jobs/a/b.ts:1 imports '../../workers/clock.js' (workers/clock.ts): jobs/ must not import from workers/",
        "workers/w.ts:1 imports '../api/app.js' (api/app.ts): workers/ must not import from api/",
      ]);
    });

    it('catch the engine importing a list or a module, directly or through another file', () => {
      const found = engineViolations([
        edge('jobs/orchestrator/submit.ts', '../domains.js', 'jobs/domains.ts'),
        edge('jobs/steps.ts', './pay/index.js', 'jobs/pay/index.ts'),
        edge('jobs/clock/sweeps.ts', '../tasks/service.js', 'jobs/tasks/service.ts'),
        edge('jobs/tasks/service.ts', '../modules.js', 'jobs/modules.ts'),
        edge('jobs/workflows/routes.ts', '../domains.js', 'jobs/domains.ts'),
      ]);
      assert.deepEqual(found.map((m) => m.split(':')[0]!.split(' ')[0]).sort(), [
        'jobs/clock/sweeps.ts',
        'jobs/clock/sweeps.ts',
        'jobs/orchestrator/submit.ts',
        'jobs/orchestrator/submit.ts',
        'jobs/steps.ts',
      ]);
    });

    it('catch a repository that reaches for shared/errors', () => {
      const found = repositoryViolations([
        edge('shared/db/runs.ts', '../errors.js', 'shared/errors.ts'),
        edge('jobs/x/service.ts', '../../shared/errors.js', 'shared/errors.ts'),
      ]);
      assert.deepEqual(
        found.map((m) => m.split(':')[0]),
        ['shared/db/runs.ts'],
      );
    });

    it('catch an I/O package in logic.ts, subpaths and @koa/* included', () => {
      const found = logicViolations([
        edge('jobs/pay/logic.ts', 'knex', null),
        edge('jobs/pay/logic.ts', '@koa/router', null),
        edge('jobs/pay/logic.ts', 'bullmq/dist/esm/index.js', null),
        edge('jobs/pay/logic.ts', 'koa-compose-like', null),
        edge('jobs/pay/job.ts', 'bullmq', null),
      ]);
      assert.deepEqual(
        found.map((m) => m.split(':')[0] + ' ' + m.split("'")[1]),
        ['jobs/pay/logic.ts knex', 'jobs/pay/logic.ts @koa/router', 'jobs/pay/logic.ts bullmq/dist/esm/index.js'],
      );
    });

    it('report a cycle with its path, however long', () => {
      const found = cycleViolations([
        edge('jobs/a.ts', './b.js', 'jobs/b.ts'),
        edge('jobs/b.ts', './c.js', 'jobs/c.ts'),
        edge('jobs/c.ts', './a.js', 'jobs/a.ts'),
        edge('jobs/c.ts', './d.js', 'jobs/d.ts'),
        edge('shared/s.ts', './s.js', 'shared/s.ts'),
      ]);
      assert.deepEqual(found.sort(), [
        'import cycle: jobs/a.ts -> jobs/b.ts -> jobs/c.ts -> jobs/a.ts',
        'import cycle: shared/s.ts -> shared/s.ts',
      ]);
      assert.deepEqual(
        cycleViolations([edge('jobs/a.ts', './b.js', 'jobs/b.ts'), edge('jobs/b.ts', './c.js', 'jobs/c.ts')]),
        [],
      );
    });
  });
});
