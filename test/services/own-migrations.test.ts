import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { createDb } from '../../shared/db/knex.js';
import {
  blockingRules,
  capturedSql,
  CHECKED_FROM,
  HISTORICAL,
  MIGRATIONS_DIR,
  migrationFiles,
  problems,
} from '../support/migration-check.js';
import { harness } from '../support/harness.js';
import { freshDatabase } from '../support/services.js';

/**
 * The service checks its own migrations with its own migration validator (jobs/migration): every file of
 * migrations/, run in order on an empty database with the SQL it sends captured, is judged alone, and a `block` fails
 * the suite unless the file says why it is safe (`// migration-safe: <rule>: <why>`) or is one of the historical
 * files applied before the check (test/support/migration-check.ts says how, and lists them).
 */
describe('own migrations: each passes the migration check, or says why it may block', function () {
  this.timeout(120_000);
  const blocking = new Map<string, Map<string, string>>();

  before(async () => {
    const database = await freshDatabase(harness.services.databaseUrl);
    const db: Knex = createDb(database.url, { min: 0, max: 2 });
    try {
      for (const file of migrationFiles()) blocking.set(file, await blockingRules(file, await capturedSql(db, file)));
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it('every migration was captured and judged, the newest included', () => {
    assert.deepEqual([...blocking.keys()], migrationFiles());
    assert.ok(migrationFiles().includes(CHECKED_FROM), `${CHECKED_FROM} is a migration`);
  });

  it('no migration blocks without its reason, and no reason is left where nothing blocks', () => {
    const found = [...blocking].flatMap(([file, rules]) =>
      problems(file, fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'), rules),
    );
    assert.deepEqual(found, []);
  });

  it('the historical list names only files from before the check', () => {
    for (const file of HISTORICAL.keys()) {
      assert.ok(blocking.has(file), `${file} is a migration`);
      assert.ok(file <= CHECKED_FROM, `${file} is newer than the check`);
    }
  });
});

describe('own migrations: the check itself', () => {
  const judge = async (file: string, sql: string, source: string, historical = HISTORICAL) =>
    problems(file, source, await blockingRules(file, sql), historical);
  const indexSql = 'CREATE INDEX deliveries_x ON deliveries (created_at);';
  const newFile = '20991231000000_new.ts';

  it('fails a new migration that blocks and says nothing, naming the rule and the statement', async () => {
    const found = await judge(newFile, indexSql, 'export async function up() {}');
    assert.equal(found.length, 1);
    assert.match(found[0]!, /blocks on index-without-concurrently at `CREATE INDEX deliveries_x/);
  });

  it('passes it with a marker naming the rule and why; refuses one without a reason or naming no rule', async () => {
    const marked = '// migration-safe: index-without-concurrently: deliveries is created empty two migrations back\n';
    assert.deepEqual(await judge(newFile, indexSql, marked), []);
    const bare = await judge(newFile, indexSql, '// migration-safe: index-without-concurrently: trust me\n');
    assert.match(bare.join('\n'), /needs a reason/);
    const typo = await judge(newFile, indexSql, `${marked}// migration-safe: index-wihout: a reason long enough\n`);
    assert.match(typo.join('\n'), /names index-wihout, no rule/);
  });

  it('refuses a marker where nothing blocks, and the historical list for a new file', async () => {
    const safe = 'CREATE INDEX CONCURRENTLY deliveries_x ON deliveries (created_at);';
    const stale = await judge(
      newFile,
      safe,
      '// migration-safe: index-without-concurrently: deliveries is created empty two migrations back\n',
    );
    assert.match(stale.join('\n'), /does not block on index-without-concurrently/);
    const listed = new Map([[newFile, { rules: ['index-without-concurrently'], risk: 'blocks writes' }]]);
    const found = await judge(newFile, indexSql, '', listed);
    assert.match(found.join('\n'), /only a file from before the check/);
    assert.match(found.join('\n'), /blocks on index-without-concurrently/);
  });
});
