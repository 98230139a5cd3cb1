import type { AlterTableCmd, AlterTableStmt, ColumnDef, Constraint, Node } from 'libpg-query';
import { as, calledFunctions, constraintsOf, ident, sqlRelation, typeOf, typeText } from './ast.js';
import type { RuleContext } from './analyze.js';
import { alterCmdLock, alterCmds } from './locks.js';
import { postChecks } from './post-checks.js';
import { columnTypeNotes } from './rules-hygiene.js';

/** ALTER TABLE, one subcommand at a time. */

// Functions Postgres marks VOLATILE that show up as column defaults: each row gets its own value, so the table is
// rewritten.
const VOLATILE = new Set([
  'random',
  'gen_random_uuid',
  'uuid_generate_v1',
  'uuid_generate_v1mc',
  'uuid_generate_v4',
  'uuidv4',
  'uuidv7',
  'clock_timestamp',
  'timeofday',
  'nextval',
  'gen_random_bytes',
  'txid_current',
  'setseed',
]);
const SERIAL = new Set(['serial', 'serial4', 'bigserial', 'serial8', 'smallserial', 'serial2']);

function notValidSteps(table: string, name: string, definition: string): string[] {
  return [
    `ALTER TABLE ${table} ADD CONSTRAINT ${ident(name)} ${definition} NOT VALID;  -- instant: existing rows ` +
      `are not checked`,
    `ALTER TABLE ${table} VALIDATE CONSTRAINT ${ident(name)};  -- in a separate transaction: scans without ` +
      `blocking reads or writes`,
  ];
}

function addColumn(ctx: RuleContext, table: string, col: ColumnDef, cmd: AlterTableCmd, isNew: boolean): void {
  const name = col.colname ?? '?';
  const constraints = constraintsOf(col);
  const has = (t: Constraint['contype']) => constraints.find((c) => c.contype === t);
  const type = typeOf(col.typeName);
  const defaultExpr = has('CONSTR_DEFAULT')?.raw_expr;
  const volatile = calledFunctions(defaultExpr).filter((f) => VOLATILE.has(f));
  const serial = SERIAL.has(type);
  const identity = has('CONSTR_IDENTITY');
  const lock = alterCmdLock(cmd);
  columnTypeNotes(ctx, col, lock);
  if (!cmd.missing_ok && !ctx.inTransaction()) {
    ctx.emit('prefer-robust-stmts', {
      lock,
      message:
        `ADD COLUMN ${name} without IF NOT EXISTS runs outside a transaction: if the migration fails after it, ` +
        `re-running it fails here`,
      safeRewrite: [`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${ident(name)} …;`],
    });
  }
  if (isNew) return;

  if (volatile.length > 0 || serial || identity) {
    const why = serial
      ? `${type} fills every row from a sequence`
      : identity
        ? 'an identity column fills every row from a sequence'
        : `the default calls ${volatile.join(', ')}(), which is volatile`;
    ctx.emit('adding-field-with-volatile-default', {
      lock,
      rewrite: true,
      message: `ADD COLUMN ${name} on ${table}: ${why}, so Postgres rewrites the whole table under ACCESS EXCLUSIVE`,
      safeRewrite: [
        `ALTER TABLE ${table} ADD COLUMN ${ident(name)} ` +
          `${serial ? type.replace(/serial/, 'int').replace(/^int$/, 'integer') : typeText(col.typeName)};  -- ` +
          `no default: instant`,
        `ALTER TABLE ${table} ALTER COLUMN ${ident(name)} SET DEFAULT …;  -- applies to new rows only, no rewrite`,
        `-- backfill existing rows in batches (UPDATE … WHERE id BETWEEN … AND …), each in its own transaction`,
      ],
    });
  } else if ((has('CONSTR_NOTNULL') || col.is_not_null) && !defaultExpr) {
    ctx.emit('adding-required-field', {
      lock,
      message:
        `ADD COLUMN ${name} NOT NULL on ${table} has no default: it fails as soon as the table has a row (and ` +
        `running code that does not set ${name} fails after)`,
      safeRewrite: [
        `ALTER TABLE ${table} ADD COLUMN ${ident(name)} ${typeText(col.typeName)} NOT NULL DEFAULT …;  -- a ` +
          `constant default is instant (Postgres 11+)`,
        `-- or: add it nullable, backfill in batches, then ADD CONSTRAINT … CHECK (${ident(name)} IS NOT ` +
          `NULL) NOT VALID, VALIDATE it, SET NOT NULL`,
      ],
    });
    ctx.check(postChecks.notNullEnforced(table, name));
  }
  if (has('CONSTR_GENERATED')) {
    ctx.emit('table-rewrite', {
      lock,
      rewrite: true,
      message:
        `ADD COLUMN ${name} GENERATED … STORED computes the value for every row: Postgres rewrites ${table} ` +
        `under ACCESS EXCLUSIVE`,
      safeRewrite: [
        `-- add a plain nullable column, fill it in batches, and keep it current with a trigger (or compute ` +
          `it in a view)`,
      ],
    });
  }
  const unique = has('CONSTR_PRIMARY') ?? has('CONSTR_UNIQUE');
  if (unique) {
    ctx.emit('unique-constraint-without-index', {
      lock,
      message:
        `ADD COLUMN ${name} ${unique.contype === 'CONSTR_PRIMARY' ? 'PRIMARY KEY' : 'UNIQUE'} builds its index ` +
        `while holding ACCESS EXCLUSIVE on ${table}`,
      safeRewrite: [
        `ALTER TABLE ${table} ADD COLUMN ${ident(name)} ${typeText(col.typeName)};`,
        `CREATE UNIQUE INDEX CONCURRENTLY ${ident(`${name}_key`)} ON ${table} (${ident(name)});`,
        `ALTER TABLE ${table} ADD CONSTRAINT ${ident(`${name}_key`)} UNIQUE USING INDEX ${ident(`${name}_key`)};`,
      ],
    });
  }
  const fk = has('CONSTR_FOREIGN');
  if (fk && !fk.skip_validation) {
    const ref = sqlRelation(fk.pktable);
    const cname = fk.conname ?? `${name}_fkey`;
    ctx.emit('foreign-key-without-not-valid', {
      lock: 'SHARE ROW EXCLUSIVE',
      message:
        `ADD COLUMN ${name} REFERENCES ${ref} validates the new foreign key while blocking writes to ${table} ` +
        `and ${ref}`,
      safeRewrite: [
        `ALTER TABLE ${table} ADD COLUMN ${ident(name)} ${typeText(col.typeName)};`,
        ...notValidSteps(table, cname, `FOREIGN KEY (${ident(name)}) REFERENCES ${ref}`),
      ],
    });
  }
  if (has('CONSTR_CHECK')) {
    ctx.emit('check-without-not-valid', {
      lock,
      message: `ADD COLUMN ${name} with a CHECK constraint checks every row under ACCESS EXCLUSIVE`,
      safeRewrite: [
        `ALTER TABLE ${table} ADD COLUMN ${ident(name)} ${typeText(col.typeName)};`,
        ...notValidSteps(table, `${name}_check`, 'CHECK (…)'),
      ],
    });
  }
}

/** A constraint added NOT VALID: a VALIDATE later in the same transaction would undo the point of it. */
function notValid(ctx: RuleContext, table: string, name: string): void {
  if (ctx.inTransaction()) ctx.m.notValidInTx.add(name);
  ctx.check(postChecks.constraintValidated(table, name, false));
}

function addConstraint(ctx: RuleContext, table: string, c: Constraint, lock: ReturnType<typeof alterCmdLock>): void {
  const name = c.conname ?? '(unnamed)';
  if (c.contype === 'CONSTR_FOREIGN') {
    const ref = sqlRelation(c.pktable);
    if (c.skip_validation) return notValid(ctx, table, name);
    ctx.emit('foreign-key-without-not-valid', {
      lock,
      message:
        `ADD CONSTRAINT ${name} FOREIGN KEY checks every row of ${table} while blocking writes to ${table} and ` +
        `${ref} (SHARE ROW EXCLUSIVE on both)`,
      safeRewrite: notValidSteps(table, name, `FOREIGN KEY (…) REFERENCES ${ref} (…)`),
    });
  } else if (c.contype === 'CONSTR_CHECK') {
    if (c.skip_validation) return notValid(ctx, table, name);
    ctx.emit('check-without-not-valid', {
      lock,
      message:
        `ADD CONSTRAINT ${name} CHECK scans every row of ${table} while holding ACCESS EXCLUSIVE (no reads, no ` +
        `writes)`,
      safeRewrite: notValidSteps(table, name, 'CHECK (…)'),
    });
  } else if (c.contype === 'CONSTR_UNIQUE' || c.contype === 'CONSTR_PRIMARY' || c.contype === 'CONSTR_EXCLUSION') {
    if (c.indexname) return;
    const kind = c.contype === 'CONSTR_PRIMARY' ? 'PRIMARY KEY' : c.contype === 'CONSTR_UNIQUE' ? 'UNIQUE' : 'EXCLUDE';
    const steps =
      c.contype === 'CONSTR_EXCLUSION'
        ? [
            '-- an exclusion constraint cannot use a prebuilt index: add it while the table is small, or in ' +
              'a maintenance window',
          ]
        : [
            `CREATE UNIQUE INDEX CONCURRENTLY ${ident(name === '(unnamed)' ? 'new_key' : name)} ON ${table} ` +
              `(…);  -- outside a transaction`,
            `ALTER TABLE ${table} ADD CONSTRAINT ${ident(name === '(unnamed)' ? 'new_key' : name)} ${kind} ` +
              `USING INDEX ${ident(name === '(unnamed)' ? 'new_key' : name)};  -- instant`,
          ];
    ctx.emit('unique-constraint-without-index', {
      lock,
      message: `ADD CONSTRAINT ${name} ${kind} builds its index while holding ACCESS EXCLUSIVE on ${table}`,
      safeRewrite: steps,
    });
  } else if (c.contype === 'CONSTR_NOTNULL' && !c.skip_validation) {
    ctx.emit('setting-not-null', {
      lock,
      message: `ADD CONSTRAINT ${name} NOT NULL scans every row of ${table} under ACCESS EXCLUSIVE`,
      safeRewrite: null,
    });
  }
}

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
