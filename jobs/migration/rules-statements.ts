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
import { as, ident, relationName, sqlRelation, strings } from './ast.js';
import type { RuleContext } from './analyze.js';
import { hasOption, statementLock } from './locks.js';
import { postChecks } from './post-checks.js';
import { notInTransaction } from './rules-guards.js';
import { dropRules, indexRules } from './rules-index-drop.js';
import { enumRules, transactionRules } from './rules-transaction.js';

export { enumUseRule } from './rules-transaction.js';

/** Every statement but ALTER TABLE, CREATE TABLE and SET (rules-alter.ts, rules-hygiene.ts). */

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
