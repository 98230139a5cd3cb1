/**
 * Rewrites the configuration table of docs/configuration.md (between its marker comments) from the config schema;
 * `npm run docs:config`. test/unit/readme.test.ts fails while the file holds anything else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_DOC, configTable, withTable } from './support/config-doc.js';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', CONFIG_DOC);
const before = fs.readFileSync(file, 'utf8');
const after = withTable(before, configTable());
if (after !== before) fs.writeFileSync(file, after);
console.log(after === before ? `${CONFIG_DOC}: table already current` : `${CONFIG_DOC}: table rewritten`);
