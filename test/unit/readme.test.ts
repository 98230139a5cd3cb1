import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_DOC, configTable, tableIn } from '../../scripts/support/config-doc.js';
import { ROOT } from '../support/spawn.js';

/** Every markdown file under docs/, as a path relative to the repository root. */
function docFiles(dir = 'docs'): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return docFiles(rel);
    return entry.name.endsWith('.md') ? [rel] : [];
  });
}

describe('README and docs/', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('docs/configuration.md holds exactly the table generated from the config schema', () => {
    const doc = fs.readFileSync(path.join(ROOT, CONFIG_DOC), 'utf8');
    assert.equal(tableIn(doc), configTable(), 'regenerate the table with: npm run docs:config');
  });

  it('README is a front door: at most 400 lines', () => {
    const lines = readme.split('\n').length;
    assert.ok(lines <= 400, `README.md has ${lines} lines; move detail into docs/`);
  });

  it('README links every docs/*.md file (a doc nobody links is lost)', () => {
    const docs = docFiles();
    assert.ok(docs.includes(CONFIG_DOC));
    const unlinked = docs.filter((doc) => !readme.includes(`](${doc})`) && !readme.includes(`](${doc}#`));
    assert.deepEqual(unlinked, [], 'add each to the README\'s "Where to read on" table');
  });

  it('each folder under jobs/ has a README.md saying what it owns', () => {
    const folders = fs.readdirSync(path.join(ROOT, 'jobs'), { withFileTypes: true }).filter((e) => e.isDirectory());
    const missing = folders.map((e) => `jobs/${e.name}/README.md`).filter((f) => !fs.existsSync(path.join(ROOT, f)));
    assert.deepEqual(missing, []);
  });

  it('every relative link and image in README, docs/ and jobs/*/README.md points at a file that exists', () => {
    const moduleReadmes = fs
      .readdirSync(path.join(ROOT, 'jobs'))
      .map((name) => `jobs/${name}/README.md`)
      .filter((f) => fs.existsSync(path.join(ROOT, f)));
    const broken = ['README.md', ...docFiles(), ...moduleReadmes].flatMap((file) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1].split('#')[0]);
      return targets
        .filter((t) => t && !/^[a-z]+:/.test(t))
        .filter((t) => !fs.existsSync(path.join(ROOT, path.dirname(file), t)))
        .map((t) => `${file} → ${t}`);
    });
    assert.deepEqual(broken, []);
  });

  it(".ci/run runs the README's test command after npm ci", () => {
    const ci = fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
    assert.match(readme, /npm ci && npm test/);
    assert.match(ci, /^npm ci$/m);
    assert.match(ci, /^npm test$/m);
  });
});
