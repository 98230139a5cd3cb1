/** ALTER TABLE … ADD COLUMN and ADD CONSTRAINT rules (volatile defaults, NOT VALID, unique indexes). */
import type { AlterTableCmd, ColumnDef, Constraint } from 'libpg-query';
import { calledFunctions, constraintsOf, ident, sqlRelation, typeOf, typeText } from './ast.js';
import type { RuleContext } from './analyze.js';
import { alterCmdLock } from './locks.js';
import { postChecks } from './post-checks.js';
import { columnTypeNotes } from './rules-hygiene.js';

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

export function addColumn(ctx: RuleContext, table: string, col: ColumnDef, cmd: AlterTableCmd, isNew: boolean): void {
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

export function addConstraint(
  ctx: RuleContext,
  table: string,
  c: Constraint,
  lock: ReturnType<typeof alterCmdLock>,
): void {
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
