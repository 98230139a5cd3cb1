import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_COLUMNS = 120;

// Never read: installed packages, build output, fixtures (inputs whose exact text the tests read), generated files.
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git', '.data']);
// sdk/src/schema.d.ts is openapi-typescript's output, compared byte for byte with a fresh one (test/sdk/types-drift).
const SKIPPED_PATHS = new Set(['test/fixtures', 'sdk/src/schema.d.ts']);

function sourceFiles(rel: string): string[] {
  return readdirSync(path.join(ROOT, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      return SKIPPED_DIRS.has(entry.name) || SKIPPED_PATHS.has(child) ? [] : sourceFiles(child);
    }
    return /\.tsx?$/.test(entry.name) && !SKIPPED_PATHS.has(child) ? [child] : [];
  });
}

describe('line length', () => {
  it(`keeps every line of .ts and .tsx source within ${MAX_COLUMNS} columns (prettier's printWidth)`, () => {
    const files = sourceFiles('');
    assert.ok(files.length > 100, `found only ${files.length} source files under ${ROOT}`);
    const long = files.flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        // Columns count characters (code points), as an editor does, not UTF-16 units or bytes.
        .map((line, i) => ({ at: `${file}:${i + 1}`, columns: [...line].length }))
        .filter((l) => l.columns > MAX_COLUMNS)
        .map((l) => `${l.at} has ${l.columns} columns`),
    );
    assert.deepEqual(
      long,
      [],
      `${long.length} lines over ${MAX_COLUMNS} columns (run npm run format, then break the rest by hand)`,
    );
  });
});
