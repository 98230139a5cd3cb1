import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * What running SQL or a transaction from a handler looks like: the database handle, a transaction, or a query on one.
 */
const SQL_USE = [/\bdeps\.db\b/, /\.transaction\(/, /\btrx\b/, /from 'knex'/, /from 'pg'/];

function apiFiles(dir = 'api'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return apiFiles(rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

const subdirs = (dir: string) =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}`);

const ROUTE_FILE = /^(index|routes|[\w-]+-routes)\.ts$/;

/**
 * Every file that declares routes: api/ and each module's routes.ts, *-routes.ts and index.ts, and those of its
 * sub-areas (jobs/resolve/cases/).
 */
function routeFiles(): string[] {
  const modules = subdirs('jobs')
    .flatMap((d) => [d, ...subdirs(d)])
    .flatMap((d) =>
      readdirSync(path.join(ROOT, d))
        .filter((f) => ROUTE_FILE.test(f))
        .map((f) => `${d}/${f}`),
    );
  return [...apiFiles(), ...modules];
}

function sqlUses(file: string): string[] {
  return readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      const hit = SQL_USE.find((re) => re.test(line));
      return hit ? [`${file}:${i + 1} ${line.trim().slice(0, 120)}`] : [];
    });
}

describe('routes map, services act, repositories hold SQL', () => {
  it(
    "no file that declares routes (api/, jobs/<domain>/routes.ts and index.ts, and its sub-areas') runs SQL or " +
      'opens a transaction',
    () => {
      assert.ok(routeFiles().includes('jobs/resolve/cases/routes.ts'), 'sub-areas are scanned');
      assert.deepEqual(routeFiles().flatMap(sqlUses), []);
    },
  );
});
