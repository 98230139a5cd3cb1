import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

const PATH = '/v1/database/migration/validate';
const TIMEOUTS = "SET lock_timeout = '2s';\nSET statement_timeout = '30s';\n";

describe('POST /v1/database/migration/validate', () => {
  let token: string;
  before(async () => {
    ({ token } = await harness.account());
  });
  const validate = (body: unknown, t: string | null = token) =>
    harness.call('POST', PATH, { token: t ?? undefined, body });

  it(
    'answers the verdict, each finding with its statement, lock, rewrite and safe sequence, the ordering ' +
      'issues and the post-checks',
    async () => {
      const res = await validate({
        migrations: [
          {
            id: '0001_users',
            sql:
              `${TIMEOUTS}CREATE TABLE IF NOT EXISTS users (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, ` +
              `email text);`,
          },
          {
            id: '0002_orders_fk',
            sql:
              `${TIMEOUTS}ALTER TABLE orders ADD CONSTRAINT orders_user_fk FOREIGN KEY (user_id) REFERENCES ` +
              `users (id) NOT VALID;\nALTER TABLE orders VALIDATE CONSTRAINT orders_user_fk;`,
          },
          { id: '0003_email_type', sql: `${TIMEOUTS}ALTER TABLE orders ALTER COLUMN total TYPE numeric(12,2);` },
        ],
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.body.ok, res.body.verdict, res.body.dialect, res.body.executed],
        [true, 'block', 'postgres', false],
      );
      assert.match(res.body.parser.postgresVersion, /^\d+\.\d+$/);
      assert.deepEqual(
        res.body.migrations.map((m: any) => [m.id, m.verdict, m.statements, m.transaction]),
        [
          ['0001_users', 'pass', 3, 'none'],
          ['0002_orders_fk', 'pass', 4, 'none'],
          ['0003_email_type', 'block', 3, 'none'],
        ],
      );
      const [finding] = res.body.migrations[2].findings;
      assert.deepEqual(
        [finding.ruleId, finding.severity, finding.category, finding.lock, finding.rewrite, finding.backupLowered],
        ['changing-column-type', 'error', 'rewrite', 'ACCESS EXCLUSIVE', true, false],
      );
      assert.deepEqual(finding.statement, {
        index: 2,
        text: 'ALTER TABLE orders ALTER COLUMN total TYPE numeric(12,2)',
        position: { offset: TIMEOUTS.length, line: 3, column: 1 },
      });
      assert.match(finding.message, /rewrites orders/);
      assert.ok(finding.safeRewrite.length >= 2);
      assert.deepEqual(
        res.body.postChecks.map((c: any) => [c.migrationId, c.kind, c.target]),
        [
          ['0002_orders_fk', 'constraintValidated', 'orders.orders_user_fk'],
          ['0003_email_type', 'columnType', 'orders.total'],
          ['0003_email_type', 'analyzed', 'orders'],
        ],
      );
      assert.match(res.body.postChecks[0].sql, /^SELECT convalidated FROM pg_constraint/);
      assert.deepEqual(res.body.orderingIssues, []);
      assert.deepEqual(res.body.summary, {
        migrations: 3,
        statements: 10,
        errors: 1,
        warnings: 0,
        notes: 0,
        postChecksOmitted: 0,
      });
    },
  );

  it(
    'a syntax error blocks with the statement and the ' +
      'character position; the other statements are still ' +
      'judged',
    async () => {
      const sql =
        `${TIMEOUTS}-- añadir columna\nALTER TABLE users ADD COLUM bio text;\nALTER TABLE users ALTER COLUMN ` +
        `email SET NOT NULL;`;
      const res = await validate({ migrations: [{ id: '0004_bio', sql }] });
      assert.equal(res.body.verdict, 'block');
      const [syntax, notNull] = res.body.migrations[0].findings;
      assert.equal(syntax.ruleId, 'syntax-error');
      assert.equal(syntax.statement.text, '-- añadir columna\nALTER TABLE users ADD COLUM bio text;');
      // "ADD COLUM bio" reads as a column named colum of type bio: the parser stops at "text" (positions count
      // characters, not UTF-8 bytes).
      const at = sql.indexOf('text;');
      assert.deepEqual(syntax.statement.position, { offset: at, line: 4, column: at - sql.lastIndexOf('\n', at) });
      assert.match(syntax.message, /syntax error at or near "text"/);
      assert.deepEqual([notNull.ruleId, notNull.statement.position.line], ['setting-not-null', 5]);
    },
  );

  it('a verified backup lowers destruction from block to warn and says so; an unverified one does not', async () => {
    const migrations = [{ id: '20240501120000_drop_legacy', sql: `${TIMEOUTS}DROP TABLE IF EXISTS legacy_orders;` }];
    const none = await validate({ migrations });
    assert.equal(none.body.verdict, 'block');
    assert.match(none.body.backup.note, /no backup/);
    const unverified = await validate({ migrations, backup: { verified: false, location: 's3://backups/x' } });
    assert.equal(unverified.body.verdict, 'block');
    const verified = await validate({
      migrations,
      backup: {
        verified: true,
        takenAt: new Date(Date.now() - 2 * 3_600_000).toISOString(),
        location: 's3://backups/2024-05-01',
      },
    });
    assert.equal(verified.body.verdict, 'warn');
    const [drop] = verified.body.migrations[0].findings;
    assert.deepEqual([drop.ruleId, drop.severity, drop.backupLowered], ['dropping-table', 'warning', true]);
    assert.match(drop.message, /verified backup at s3:\/\/backups\/2024-05-01 lowers this from block to warn/);
    assert.match(verified.body.backup.note, /taken 2 hour\(s\) ago/);
    assert.deepEqual(
      verified.body.postChecks.map((c: any) => c.kind),
      ['objectDropped'],
    );
  });

  it('orderingIssues: duplicate ids, ids out of order, gaps and mixed naming schemes', async () => {
    const sql = `${TIMEOUTS}SELECT 1;`;
    const res = await validate({
      migrations: ['0001_a', '0002_b', '0005_c', '0004_d', '0004_d', '20240101120000_e'].map((id) => ({ id, sql })),
    });
    const kinds = res.body.orderingIssues.map((o: any) => [o.kind, o.severity, o.ids]);
    assert.deepEqual(kinds, [
      ['duplicateId', 'warning', ['0004_d']],
      ['mixedNaming', 'note', ['0001_a', '0002_b', '0005_c', '0004_d', '20240101120000_e']],
      ['outOfOrder', 'warning', ['0005_c', '0004_d']],
      ['gap', 'note', ['0002_b', '0004_d']],
    ]);
    assert.equal(res.body.verdict, 'warn', 'ordering issues warn');
  });

  it('assumeInTransaction: CONCURRENTLY fails inside the transaction the tool opens', async () => {
    const migrations = [
      {
        id: '0006_idx',
        sql: `${TIMEOUTS}CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_created_idx ON orders (created_at);`,
      },
    ];
    assert.equal((await validate({ migrations })).body.verdict, 'pass');
    const wrapped = await validate({ migrations, assumeInTransaction: true });
    assert.deepEqual(
      wrapped.body.migrations[0].findings.map((f: any) => f.ruleId),
      ['not-allowed-in-transaction'],
    );
    assert.equal(wrapped.body.migrations[0].transaction, 'assumed');
  });

  it('never executes SQL: the table a DROP TABLE migration names is still there, with its rows', async () => {
    await harness.deps.db.raw('CREATE TABLE IF NOT EXISTS i15_keep_me (id int)');
    await harness.deps.db.raw('INSERT INTO i15_keep_me VALUES (1), (2)');
    const res = await validate({
      migrations: [
        {
          id: '0007_drop',
          sql:
            'DROP TABLE i15_keep_me; TRUNCATE i15_keep_me; CREATE TABLE i15_never (id int); DELETE FROM ' +
            'i15_keep_me;',
        },
      ],
    });
    assert.equal(res.body.verdict, 'block');
    assert.deepEqual(
      res.body.migrations[0].findings.filter((f: any) => f.severity === 'error').map((f: any) => f.ruleId),
      ['dropping-table', 'truncating-table', 'delete-without-where'],
    );
    const { rows } = await harness.deps.db.raw('SELECT count(*)::int AS n FROM i15_keep_me');
    assert.equal(rows[0].n, 2);
    const { rows: made } = await harness.deps.db.raw("SELECT to_regclass('i15_never') AS t");
    assert.equal(made[0].t, null);
    await harness.deps.db.raw('DROP TABLE i15_keep_me');
  });

  it(
    'lists at most 200 findings a migration (1000 in all) and counts the rest; the verdict and summary count ' +
      'everything',
    async () => {
      const many = (n: number) => `${TIMEOUTS}${'DROP TABLE IF EXISTS t;\n'.repeat(n)}`;
      const res = await validate({
        migrations: [
          { id: '0001_big', sql: many(1500) },
          ...Array.from({ length: 5 }, (_, i) => ({ id: `000${i + 2}_more`, sql: many(150) })),
        ],
      });
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.migrations.map((m: any) => [m.findings.length, m.omitted]),
        [
          [200, 1300],
          [150, 0],
          [150, 0],
          [150, 0],
          [150, 0],
          [150, 0],
        ],
      );
      const only = await validate({
        migrations: Array.from({ length: 7 }, (_, i) => ({ id: `00${i + 10}_x`, sql: many(180) })),
      });
      assert.deepEqual(
        only.body.migrations.map((m: any) => m.findings.length),
        [180, 180, 180, 180, 180, 100, 0],
      );
      assert.deepEqual([res.body.verdict, res.body.summary.errors], ['block', 2250]);
    },
  );

  it('422 for a dialect other than postgres; 400 for a malformed body; 401 without a token', async () => {
    const mysql = await validate({ migrations: [{ id: '1', sql: 'SELECT 1' }], dialect: 'mysql' });
    assert.deepEqual([mysql.status, mysql.body.error, mysql.body.details.field], [422, 'policyViolation', 'dialect']);
    assert.equal((await validate({ migrations: [{ id: '1', sql: 'SELECT 1' }], dialect: 'PostgreSQL' })).status, 200);
    for (const [body, path] of [
      [{}, '/migrations'],
      [{ migrations: [] }, '/migrations'],
      [{ migrations: [{ sql: 'SELECT 1' }] }, '/migrations/0/id'],
      [{ migrations: [{ id: '1', sql: 42 }] }, '/migrations/0/sql'],
      [{ migrations: [{ id: '1', sql: 'SELECT 1' }], backup: { verified: 'yes' } }, '/backup/verified'],
      [{ migrations: [{ id: '1', sql: 'SELECT 1' }], backup: { takenAt: 'yesterday' } }, '/backup/takenAt'],
    ] as const) {
      const res = await validate(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.details[0].path, path);
    }
    assert.equal((await validate({ migrations: [{ id: '1', sql: 'SELECT 1' }] }, null)).status, 401);
  });

  it(
    'has no record to find: the answer depends on the body only, whoever asks (no 404 or cross-account case ' +
      'exists)',
    async () => {
      const other = await harness.account();
      const body = {
        migrations: [{ id: '0008', sql: `${TIMEOUTS}ALTER TABLE users RENAME COLUMN name TO full_name;` }],
      };
      const [mine, theirs] = [await validate(body), await validate(body, other.token)];
      assert.deepEqual(mine.body, theirs.body);
    },
  );
});
