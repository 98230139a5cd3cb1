import type {
  AlterDomainStmt,
  AlterEnumStmt,
  ClusterStmt,
  Constraint,
  DeleteStmt,
  DropStmt,
  IndexStmt,
  LockStmt,
  Node,
  RangeVar,
  RenameStmt,
  ReindexStmt,
  TransactionStmt,
  TruncateStmt,
  UpdateStmt,
  VacuumStmt,
} from 'libpg-query';
import { as, ident, literal, relationName, sqlRelation, strings } from './ast.js';
import type { RuleContext } from './analyze.js';
import { hasOption, statementLock } from './locks.js';
import { postChecks } from './post-checks.js';

/** Every statement but ALTER TABLE, CREATE TABLE and SET (rules-alter.ts, rules-hygiene.ts). */

const OUTSIDE_TX = [
  "-- run it in a migration of its own, outside a transaction (turn the tool's transaction off for that migration)",
];

function notInTransaction(ctx: RuleContext, what: string): void {
  if (ctx.inTransaction())
    ctx.emit('not-allowed-in-transaction', {
      lock: statementLock(ctx.stmt.node),
      message:
        `${what} cannot run inside a transaction block: the migration fails ` +
        `here${
          ctx.m.assumeInTransaction && !ctx.m.explicitTx
            ? ' (the tool wraps the migration ' + 'in one: assumeInTransaction)'
            : ''
        }`,
      safeRewrite: OUTSIDE_TX,
    });
}

function robust(ctx: RuleContext, ok: boolean | undefined, what: string, fix: string): void {
  if (!ok && !ctx.inTransaction())
    ctx.emit('prefer-robust-stmts', {
      lock: statementLock(ctx.stmt.node),
      message: `${what} runs outside a transaction: if the migration fails after it, re-running it fails here`,
      safeRewrite: [fix],
    });
}

function indexRules(ctx: RuleContext, s: IndexStmt): void {
  const table = sqlRelation(s.relation);
  const name = s.idxname ?? null;
  if (s.concurrent) {
    notInTransaction(ctx, 'CREATE INDEX CONCURRENTLY');
    ctx.check(postChecks.indexValid(table, name));
  } else if (!ctx.isNew(s.relation)) {
    ctx.emit('index-without-concurrently', {
      lock: 'SHARE',
      message:
        `CREATE ${s.unique ? 'UNIQUE ' : ''}INDEX${name ? ` ${name}` : ''} on ${table} blocks every INSERT, ` +
        `UPDATE and DELETE on it until the build ends`,
      safeRewrite: [
        `CREATE ${s.unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY IF NOT EXISTS ${name ? ident(name) : '…'} ON ` +
          `${table} (…);  -- outside a transaction`,
      ],
    });
  }
  robust(
    ctx,
    s.if_not_exists,
    `CREATE INDEX ${name ?? ''} without IF NOT EXISTS`.replace('  ', ' '),
    `CREATE INDEX${s.concurrent ? ' CONCURRENTLY' : ''} IF NOT EXISTS ${name ? ident(name) : '…'} ON ${table} (…);`,
  );
}

function objectNames(s: DropStmt): string[] {
  return (s.objects ?? []).map((o) => {
    const list = as<{ items?: Node[] }>(o, 'List');
    return list ? strings(list.items).join('.') : strings([o]).join('.');
  });
}

function dropRules(ctx: RuleContext, s: DropStmt): void {
  const names = objectNames(s);
  const cascade = s.behavior === 'DROP_CASCADE';
  const lock = statementLock(ctx.stmt.node);
  switch (s.removeType) {
    case 'OBJECT_INDEX':
      if (s.concurrent) notInTransaction(ctx, 'DROP INDEX CONCURRENTLY');
      else
        ctx.emit('drop-index-without-concurrently', {
          lock,
          message:
            `DROP INDEX ${names.join(', ')} takes ACCESS EXCLUSIVE on its table: reads and writes wait until ` +
            `it is done`,
          safeRewrite: [
            `DROP INDEX CONCURRENTLY IF EXISTS ` +
              `${names.map((n) => n.split('.').map(ident).join('.')).join(', ')};  -- outside a transaction`,
          ],
        });
      break;
    case 'OBJECT_TABLE':
      for (const name of names) {
        const rel: RangeVar = name.includes('.')
          ? { schemaname: name.split('.')[0], relname: name.split('.').slice(1).join('.') }
          : { relname: name };
        if (ctx.isNew(rel)) continue;
        ctx.emit('dropping-table', {
          lock,
          message:
            `DROP TABLE ` +
            `${name}${cascade ? ' CASCADE (and every view and foreign key that depends on it)' : ''} destroys ` +
            `the table and its rows`,
          safeRewrite: [
            `-- stop every reader and writer of ${name} first; rename it (ALTER TABLE … RENAME TO ` +
              `${name}_deprecated) for a release to find stragglers`,
            `-- take and verify a backup, then: DROP TABLE IF EXISTS ${name.split('.').map(ident).join('.')};`,
          ],
        });
        ctx.check(postChecks.objectDropped(name.split('.').map(ident).join('.')));
      }
      break;
    case 'OBJECT_SCHEMA':
      ctx.emit('dropping-schema', {
        lock,
        message:
          `DROP SCHEMA ` +
          `${names.join(', ')}${
            cascade ? ' CASCADE drops every ' + 'table, view and function ' + 'in it' : ' destroys the schema'
          }`,
        safeRewrite: [
          '-- drop the objects one by one, each after its own checks, then the empty schema without CASCADE',
        ],
      });
      break;
    default:
      if (cascade)
        ctx.emit('drop-cascade', {
          lock,
          message:
            `DROP … ${names.join(', ')} CASCADE also drops every object that depends on it (columns of that ` +
            `type, views, defaults) without naming them`,
          safeRewrite: ['-- drop without CASCADE: Postgres then lists the dependents, and you decide about each'],
        });
  }
  robust(ctx, s.missing_ok, `DROP without IF EXISTS (${names.join(', ')})`, 'DROP … IF EXISTS …;');
}

function dataRules(
  ctx: RuleContext,
  kind: 'UPDATE' | 'DELETE',
  rel: RangeVar | undefined,
  where: Node | undefined,
): void {
  const table = sqlRelation(rel);
  if (ctx.isNew(rel)) return;
  if (ctx.inTransaction() && ctx.m.exclusiveInTx.has(relationName(rel).toLowerCase())) {
    ctx.emit('backfill-in-schema-transaction', {
      lock: 'ACCESS EXCLUSIVE',
      message:
        `${kind} on ${table} runs in the transaction that took ACCESS EXCLUSIVE on it: no one reads or writes ` +
        `${table} until every row is done and the transaction commits`,
      safeRewrite: [
        'COMMIT;  -- the schema change first, in its own short transaction',
        `-- then the ${kind} in batches, each in its own transaction (a separate migration, or one the tool ` +
          `runs outside a transaction)`,
      ],
    });
  }
  if (!where) {
    ctx.emit(kind === 'UPDATE' ? 'update-without-where' : 'delete-without-where', {
      lock: 'ROW EXCLUSIVE',
      message:
        `${kind} on ${table} without WHERE ${kind === 'UPDATE' ? 'overwrites' : 'deletes'} every row, in one ` +
        `transaction that locks them all`,
      safeRewrite: [
        `-- add the WHERE that names the rows meant, and run it in batches (${kind} … WHERE id IN (SELECT id ` +
          `FROM ${table} WHERE … LIMIT 10000)), each in its own transaction`,
      ],
    });
  }
  ctx.check(
    postChecks.rowCount(
      table,
      kind === 'DELETE'
        ? 'the count before, minus the rows meant to go'
        : 'the same count as before (an UPDATE changes rows, not their number)',
    ),
  );
}

function transactionRules(ctx: RuleContext, s: TransactionStmt): void {
  const m = ctx.m;
  if (s.kind === 'TRANS_STMT_BEGIN' || s.kind === 'TRANS_STMT_START') {
    // Postgres does not nest: a BEGIN inside a transaction is ignored (with a warning); the first COMMIT ends it.
    if (ctx.inTransaction())
      ctx.emit('transaction-nesting', {
        lock: null,
        message:
          `BEGIN inside a transaction that is already ` +
          `open${m.explicitTx ? '' : ' (the tool opens one: assumeInTransaction)'}: Postgres ignores it with a ` +
          `warning, and the first COMMIT ends the whole transaction early`,
        safeRewrite: ['-- remove the inner BEGIN/COMMIT, or split the migration'],
      });
    m.explicitTx = true;
    m.sawBegin = true;
  } else if (s.kind === 'TRANS_STMT_COMMIT' || s.kind === 'TRANS_STMT_ROLLBACK') {
    if (!m.explicitTx)
      ctx.emit('transaction-nesting', {
        lock: null,
        message: m.assumeInTransaction
          ? `${s.kind === 'TRANS_STMT_COMMIT' ? 'COMMIT' : 'ROLLBACK'} ends the transaction the tool opened: ` +
            `what follows runs outside it`
          : `${s.kind === 'TRANS_STMT_COMMIT' ? 'COMMIT' : 'ROLLBACK'} without an open transaction`,
        safeRewrite: ['-- let the tool manage the transaction, or BEGIN before it'],
      });
    if (!m.explicitTx) m.assumeInTransaction = false; // it ended the tool's transaction
    m.explicitTx = false;
    m.enumValuesInTx.clear();
    m.notValidInTx.clear();
    m.exclusiveInTx.clear();
    if (m.lockTimeout === 'local') m.lockTimeout = null;
    if (m.statementTimeout === 'local') m.statementTimeout = null;
  }
}

function enumRules(ctx: RuleContext, s: AlterEnumStmt): void {
  if (!s.newVal || s.oldVal) return;
  const type = strings(s.typeName).join('.');
  if (!s.newValNeighbor)
    ctx.emit('enum-value-ordering', {
      lock: null,
      message:
        `ADD VALUE ${literal(s.newVal)} to ${type} appends it after every existing value: ORDER BY and < on ` +
        `the enum put it last`,
      safeRewrite: [`ALTER TYPE ${type} ADD VALUE IF NOT EXISTS ${literal(s.newVal)} BEFORE|AFTER '…';`],
    });
  if (ctx.inTransaction()) ctx.m.enumValuesInTx.set(s.newVal, type);
  ctx.check(postChecks.enumValues(type, s.newVal));
}

/** A value added to an enum in the open transaction, used by a later statement of it: "unsafe use of new value". */
export function enumUseRule(ctx: RuleContext, literals: string[]): void {
  for (const value of literals) {
    const type = ctx.m.enumValuesInTx.get(value);
    if (!type) continue;
    ctx.m.enumValuesInTx.delete(value);
    ctx.emit('enum-value-used-in-transaction', {
      lock: statementLock(ctx.stmt.node),
      message:
        `${literal(value)} was added to ${type} in this transaction: using it before COMMIT fails with "unsafe ` +
        `use of new value"`,
      safeRewrite: [`COMMIT;  -- after ALTER TYPE ${type} ADD VALUE`, '-- use the new value in the next migration'],
    });
  }
}

export function statementRules(ctx: RuleContext, node: Node): void {
  const [kind] = Object.keys(node);
  const lock = statementLock(node);
  switch (kind) {
    case 'IndexStmt':
      return indexRules(ctx, as<IndexStmt>(node, kind)!);
    case 'DropStmt':
      return dropRules(ctx, as<DropStmt>(node, kind)!);
    case 'DropdbStmt':
      notInTransaction(ctx, 'DROP DATABASE');
      return ctx.emit('dropping-database', {
        lock: null,
        message: `DROP DATABASE ${as<{ dbname?: string }>(node, kind)!.dbname ?? ''} destroys the database`,
        safeRewrite: ['-- never in a migration: do it by hand after a verified backup'],
      });
    case 'RenameStmt': {
      const s = as<RenameStmt>(node, kind)!;
      if (ctx.isNew(s.relation)) return;
      if (s.renameType === 'OBJECT_COLUMN')
        ctx.emit('renaming-column', {
          lock,
          message:
            `RENAME COLUMN ${s.subname} TO ${s.newname} on ${sqlRelation(s.relation)}: running code that uses ` +
            `${s.subname} fails from this moment`,
          safeRewrite: [
            `-- add ${s.newname}, write both, backfill, move reads, then drop ${s.subname} (or rename and ` +
              `leave a view with the old name)`,
          ],
        });
      if (s.renameType === 'OBJECT_TABLE')
        ctx.emit('renaming-table', {
          lock,
          message:
            `RENAME ${sqlRelation(s.relation)} TO ${s.newname}: running code that uses the old name fails from ` +
            `this moment`,
          safeRewrite: [
            `-- rename, then CREATE VIEW ${sqlRelation(s.relation)} AS SELECT * FROM ` +
              `${ident(s.newname ?? '')} until the code uses the new name`,
          ],
        });
      return;
    }
    case 'ReindexStmt': {
      const s = as<ReindexStmt>(node, kind)!;
      if (hasOption(s.params, 'concurrently')) {
        notInTransaction(ctx, 'REINDEX CONCURRENTLY');
        if (s.relation) ctx.check(postChecks.indexValid(sqlRelation(s.relation), null));
      } else {
        ctx.emit('reindex-without-concurrently', {
          lock,
          message:
            `REINDEX ${s.relation ? sqlRelation(s.relation) : (s.name ?? '')} blocks writes to the table, and ` +
            `reads that would use the index, for the whole rebuild`,
          safeRewrite: [
            `REINDEX (CONCURRENTLY) ${s.kind?.replace('REINDEX_OBJECT_', '') ?? 'INDEX'} ` +
              `${s.relation ? sqlRelation(s.relation) : (s.name ?? '…')};  -- Postgres 12+, outside a ` +
              `transaction`,
          ],
        });
      }
      return;
    }
    case 'VacuumStmt': {
      const s = as<VacuumStmt>(node, kind)!;
      if (s.is_vacuumcmd) notInTransaction(ctx, 'VACUUM');
      if (s.is_vacuumcmd && hasOption(s.options, 'full')) {
        const rels =
          (s.rels ?? [])
            .map((r) => sqlRelation(as<{ relation?: RangeVar }>(r, 'VacuumRelation')?.relation))
            .join(', ') || 'every table';
        ctx.emit('vacuum-full', {
          lock,
          rewrite: true,
          message:
            `VACUUM FULL ${rels} rewrites each table while holding ACCESS EXCLUSIVE: no reads, no writes until ` +
            `it ends`,
          safeRewrite: [
            '-- pg_repack -t <table> rebuilds online with a brief lock at the end; plain VACUUM reclaims ' +
              'space for reuse without a lock',
          ],
        });
      }
      return;
    }
    case 'ClusterStmt': {
      const s = as<ClusterStmt>(node, kind)!;
      return ctx.emit('cluster', {
        lock,
        rewrite: true,
        message:
          `CLUSTER ${s.relation ? sqlRelation(s.relation) : '(every clustered table)'} rewrites the table in ` +
          `index order while holding ACCESS EXCLUSIVE`,
        safeRewrite: ['-- pg_repack --order-by (or -i <index>) reorders online with a brief lock at the end'],
      });
    }
    case 'TruncateStmt': {
      const s = as<TruncateStmt>(node, kind)!;
      const tables = (s.relations ?? []).map((r) => sqlRelation(as<RangeVar>(r, 'RangeVar')));
      const cascade = s.behavior === 'DROP_CASCADE';
      ctx.emit(cascade ? 'truncate-cascade' : 'truncating-table', {
        lock,
        message:
          `TRUNCATE ` +
          `${tables.join(', ')}${
            cascade
              ? ' CASCADE also empties every ' +
                'table with a foreign key to ' +
                (tables.length > 1 ? 'them' : 'it') +
                ', unnamed'
              : ''
          } ` +
          `deletes every row under ACCESS EXCLUSIVE`,
        safeRewrite: [`-- name every table to empty, without CASCADE; take and verify a backup first`],
      });
      for (const t of tables)
        ctx.check(postChecks.rowCount(t, '0, and the same counts as before in every table you did not mean to empty'));
      return;
    }
    case 'UpdateStmt': {
      const s = as<UpdateStmt>(node, kind)!;
      return dataRules(ctx, 'UPDATE', s.relation, s.whereClause);
    }
    case 'DeleteStmt': {
      const s = as<DeleteStmt>(node, kind)!;
      return dataRules(ctx, 'DELETE', s.relation, s.whereClause);
    }
    case 'AlterEnumStmt':
      return enumRules(ctx, as<AlterEnumStmt>(node, kind)!);
    case 'TransactionStmt':
      return transactionRules(ctx, as<TransactionStmt>(node, kind)!);
    case 'LockStmt': {
      const s = as<LockStmt>(node, kind)!;
      if ((s.mode ?? 8) >= 7)
        ctx.emit('explicit-lock', {
          lock,
          message: `LOCK TABLE … IN ${lock} MODE holds it until the transaction ends: keep that transaction short`,
          safeRewrite: ['-- lock only what needs it, as late as possible, with lock_timeout set'],
        });
      return;
    }
    case 'AlterDomainStmt': {
      const s = as<AlterDomainStmt>(node, kind)!;
      const c = as<Constraint>(s.def, 'Constraint');
      if (s.subtype === 'C' && c?.contype === 'CONSTR_CHECK' && !c.skip_validation) {
        ctx.emit('check-without-not-valid', {
          lock: 'SHARE',
          message:
            `ALTER DOMAIN ${strings(s.typeName).join('.')} ADD CONSTRAINT checks every column of every table ` +
            `that uses the domain`,
          safeRewrite: [
            `ALTER DOMAIN ${strings(s.typeName).join('.')} ADD CONSTRAINT ${ident(c.conname ?? 'check')} ` +
              `CHECK (…) NOT VALID;`,
            `ALTER DOMAIN ${strings(s.typeName).join('.')} VALIDATE CONSTRAINT ${ident(c.conname ?? 'check')};`,
          ],
        });
      }
      return;
    }
    default:
      return;
  }
}
