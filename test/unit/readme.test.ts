import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigSchema } from '../../shared/config.js';
import { ROOT } from '../support/spawn.js';

describe('README', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('documents every environment variable the service reads', () => {
    const missing = Object.keys(ConfigSchema.properties).filter((name) => !readme.includes(`| \`${name}\` |`));
    assert.deepEqual(missing, [], 'regenerate the table with: node --import tsx scripts/config-table.ts');
  });

  it('.ci/run runs the README\'s test command after npm ci', () => {
    const ci = fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
    assert.match(readme, /npm ci && npm test/);
    assert.match(ci, /^npm ci$/m);
    assert.match(ci, /^npm test$/m);
  });
});
