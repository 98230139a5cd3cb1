import type { AlterTableStmt, ColumnDef, Constraint, Node } from 'libpg-query';
import { as, ident, sqlRelation, typeText } from './ast.js';
import type { RuleContext } from './analyze.js';
import { alterCmdLock, alterCmds } from './locks.js';
import { postChecks } from './post-checks.js';
import { addColumn, addConstraint } from './rules-alter-add.js';

/** ALTER TABLE, one subcommand at a time. */

export function alterTableRules(ctx: RuleContext, node: Node): void {
  const stmt = as<AlterTableStmt>(node, 'AlterTableStmt')!;
  if (stmt.objtype && stmt.objtype !== 'OBJECT_TABLE') return;
  const table = sqlRelation(stmt.relation);
  const isNew = ctx.isNew(stmt.relation);
  for (const cmd of alterCmds(stmt)) {
    const lock = alterCmdLock(cmd);
    const column = cmd.name ?? '?';
    if (cmd.subtype === 'AT_AddColumn') {
      const col = as<ColumnDef>(cmd.def, 'ColumnDef');
      if (col) addColumn(ctx, table, col, cmd, isNew);
      continue;
    }
    if (isNew) continue;
    switch (cmd.subtype) {
      case 'AT_AlterColumnType': {
        const type = typeText(as<ColumnDef>(cmd.def, 'ColumnDef')?.typeName);
        ctx.emit('changing-column-type', {
          lock,
          rewrite: true,
          message:
            `ALTER COLUMN ${column} TYPE ${type} rewrites ${table} and rebuilds its indexes under ACCESS ` +
            `EXCLUSIVE (only binary-coercible changes, such as varchar(n) to text or to a longer varchar, skip ` +
            `the rewrite)`,
          safeRewrite: [
            `ALTER TABLE ${table} ADD COLUMN ${ident(`${column}_new`)} ${type};`,
            `-- write both columns from the application (or a trigger), backfill ${column}_new in batches`,
            `-- switch reads to ${column}_new, then drop ${column} and rename in a later release`,
          ],
        });
        ctx.check(postChecks.columnType(table, column, type));
        ctx.check(postChecks.analyzed(table));
        break;
      }
      case 'AT_SetNotNull':
        ctx.emit('setting-not-null', {
          lock,
          message:
            `SET NOT NULL on ${table}.${column} scans every row while holding ACCESS EXCLUSIVE (no reads, no ` +
            `writes)`,
          safeRewrite: [
            `ALTER TABLE ${table} ADD CONSTRAINT ${ident(`${column}_not_null`)} CHECK (${ident(column)} IS ` +
              `NOT NULL) NOT VALID;`,
            `ALTER TABLE ${table} VALIDATE CONSTRAINT ${ident(`${column}_not_null`)};  -- separate ` +
              `transaction, no blocking scan`,
            `ALTER TABLE ${table} ALTER COLUMN ${ident(column)} SET NOT NULL;  -- Postgres 12+ uses the ` +
              `valid CHECK and skips the scan`,
            `ALTER TABLE ${table} DROP CONSTRAINT ${ident(`${column}_not_null`)};`,
          ],
        });
        ctx.check(postChecks.notNullEnforced(table, column));
        break;
      case 'AT_DropNotNull':
        ctx.emit('dropping-not-null', {
          lock,
          message: `DROP NOT NULL on ${table}.${column}: code and reports that assume a value will meet NULLs`,
          safeRewrite: [`-- make every reader handle NULL in ${column} first, then drop the constraint`],
        });
        break;
      case 'AT_DropColumn':
        ctx.emit('dropping-column', {
          lock,
          message: `DROP COLUMN ${column} on ${table} destroys its data (and fails running code that still reads it)`,
          safeRewrite: [
            `-- stop reading and writing ${column} in a release first (and ignore it in ORMs)`,
            `-- take and verify a backup, then: ALTER TABLE ${table} DROP COLUMN IF EXISTS ${ident(column)};`,
          ],
        });
        break;
      case 'AT_AddConstraint': {
        const c = as<Constraint>(cmd.def, 'Constraint');
        if (c) addConstraint(ctx, table, c, lock);
        break;
      }
      case 'AT_ValidateConstraint':
        if (ctx.m.notValidInTx.has(column)) {
          ctx.emit('validate-in-same-transaction', {
            lock: 'ACCESS EXCLUSIVE',
            message:
              `VALIDATE CONSTRAINT ${column} runs in the transaction that added it NOT VALID: the ADD's lock ` +
              `is held through the validating scan, so NOT VALID bought nothing`,
            safeRewrite: [
              `COMMIT;  -- end the transaction that added ${column}`,
              `ALTER TABLE ${table} VALIDATE CONSTRAINT ${ident(column)};  -- in its own transaction or migration`,
            ],
          });
        }
        ctx.check(postChecks.constraintValidated(table, column, true));
        break;
      case 'AT_DetachPartition': {
        const concurrent = as<{ concurrent?: boolean }>(cmd.def, 'PartitionCmd')?.concurrent;
        if (concurrent && ctx.inTransaction())
          ctx.emit('not-allowed-in-transaction', {
            lock,
            message: 'DETACH PARTITION … CONCURRENTLY cannot run inside a transaction block: the migration fails here',
            safeRewrite: [
              "-- run it in a migration of its own, outside a transaction (disable the tool's transaction for it)",
            ],
          });
        if (!concurrent)
          ctx.emit('detach-partition-without-concurrently', {
            lock,
            message: `DETACH PARTITION takes ACCESS EXCLUSIVE on ${table}: every query on the partitioned table waits`,
            safeRewrite: [
              `ALTER TABLE ${table} DETACH PARTITION … CONCURRENTLY;  -- Postgres 14+, outside a transaction`,
            ],
          });
        break;
      }
      case 'AT_SetTableSpace':
      case 'AT_SetLogged':
      case 'AT_SetUnLogged':
      case 'AT_SetAccessMethod': {
        const what = {
          AT_SetTableSpace: 'SET TABLESPACE',
          AT_SetLogged: 'SET LOGGED',
          AT_SetUnLogged: 'SET UNLOGGED',
          AT_SetAccessMethod: 'SET ACCESS METHOD',
        }[cmd.subtype];
        ctx.emit('table-rewrite', {
          lock,
          rewrite: true,
          message: `${what} rewrites ${table} under ACCESS EXCLUSIVE`,
          safeRewrite: ['-- use pg_repack (or a copy-and-swap) to move or convert a large table online'],
        });
        ctx.check(postChecks.analyzed(table));
        break;
      }
      default:
        break;
    }
  }
}
