import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeEdge, loadImportGraph, type ImportEdge } from '../support/import-graph.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Modules talk through their public face: a file of jobs/<a>/ that imports a
 * file of another module jobs/<b>/ imports only jobs/<b>/index.ts. Type-only
 * imports count too: a type reached by path couples to the file layout just
 * as a value does, and index.ts re-exports types at no runtime cost.
 * Sub-folders (jobs/resolve/cases, jobs/bridge/portal) belong to their parent.
 * The engine (jobs/orchestrator, jobs/clock) keeps the rule too. Tests, scripts,
 * api/ and workers/ are exempt (they wire modules together).
 */
const moduleOf = (file: string) => /^jobs\/([^/]+)\//.exec(file)?.[1] ?? null;

/** The engine's files are one unit across their folders (clock and the event registry read the run states). */
const ENGINE = [/^jobs\/orchestrator\//, /^jobs\/clock\//, /^jobs\/events\/registry\.ts$/];
const bothEngine = (e: ImportEdge) => ENGINE.some((r) => r.test(e.from)) && ENGINE.some((r) => r.test(e.to ?? ''));

/**
 * Deep imports that remain, each with the reason. Each must still exist: a
 * fixed one fails the last test until it is removed here. Add none: a new
 * cross-module need is a name in the index.
 */
const PENDING: Array<{ from: string; to: string; why: string }> = [];

function faceViolations(edges: ImportEdge[]): string[] {
  return edges
    .filter((e) => {
      const a = moduleOf(e.from);
      const b = e.to ? moduleOf(e.to) : null;
      return a !== null && b !== null && a !== b && !bothEngine(e) && e.to !== `jobs/${b}/index.ts`;
    })
    .map((e) => `${describeEdge(e)}: import jobs/${moduleOf(e.to!)}/index.ts (export the name there)`);
}

/** A module's registration (jobs/<m>/module.ts) is read by the module lists alone; everyone else uses the face. */
const MODULE_LISTS = ['jobs/domains.ts', 'jobs/modules.ts'];
function registrationViolations(edges: ImportEdge[]): string[] {
  return edges
    .filter((e) => e.to !== null && /^jobs\/[^/]+\/module\.ts$/.test(e.to) && !MODULE_LISTS.includes(e.from))
    .map((e) => `${describeEdge(e)}: only jobs/domains.ts and jobs/modules.ts import a module.ts; use its index.ts`);
}

const pending = (e: ImportEdge) => PENDING.some((x) => x.from === e.from && x.to === e.to);
const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, line: 1, spec: to, to, typeOnly });

describe('module faces', function () {
  // Starting the TypeScript compiler process and parsing the project takes about a second.
  this.timeout(60_000);
  let edges: ImportEdge[];
  before(() => {
    ({ edges } = loadImportGraph(ROOT, ['api', 'jobs', 'workers', 'shared', 'scripts']));
  });

  it('a module imports another module only through its index.ts', () => {
    assert.deepEqual(faceViolations(edges.filter((e) => !pending(e))), []);
  });

  it("only the module lists import a module's registration (module.ts)", () => {
    assert.deepEqual(registrationViolations(edges), []);
    const found = registrationViolations([
      edge('jobs/domains.ts', 'jobs/pay/module.ts'),
      edge('jobs/bridge/routes.ts', 'jobs/policy/module.ts'),
      edge('api/app.ts', 'jobs/tasks/module.ts'),
    ]);
    assert.deepEqual(
      found.map((m) => m.split(':')[0]),
      ['jobs/bridge/routes.ts', 'api/app.ts'],
    );
  });

  it('every pending deep import still exists (remove the ones that were fixed)', () => {
    const stale = PENDING.filter((x) => !edges.some((e) => e.from === x.from && e.to === x.to));
    assert.deepEqual(
      stale.map((x) => `${x.from} -> ${x.to} is no longer imported: remove it from PENDING`),
      [],
    );
  });

  it('catches a deep import, type-only and from a sub-folder included, and lets the rest pass', () => {
    const found = faceViolations([
      edge('jobs/a/service.ts', 'jobs/b/repository.ts'),
      edge('jobs/a/cases/x.ts', 'jobs/b/schemas.ts', true),
      edge('jobs/a/service.ts', 'jobs/b/index.ts'),
      edge('jobs/a/cases/x.ts', 'jobs/a/logic.ts'),
      edge('jobs/a/service.ts', 'shared/db/knex.ts'),
      edge('jobs/orchestrator/submit.ts', 'jobs/tasks/service.ts'),
      edge('jobs/clock/sweeps.ts', 'jobs/orchestrator/stuck-runs.ts'),
      edge('jobs/domains.ts', 'jobs/b/service.ts'),
      edge('api/routes/r.ts', 'jobs/b/service.ts'),
      edge('workers/w.ts', 'jobs/b/service.ts'),
    ]);
    assert.deepEqual(
      found.map((m) => m.split(' ')[0]),
      ['jobs/a/service.ts:1', 'jobs/a/cases/x.ts:1', 'jobs/orchestrator/submit.ts:1'],
    );
  });
});
