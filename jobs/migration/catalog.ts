import type { Severity } from '../../shared/schemas/analysis.js';
import type { MigrationCategory, MigrationRuleId } from './schemas.js';

/**
 * What each rule is about and how much it weighs. The severity follows the
 * verdict semantics: `error` (block) for what locks out reads or writes for
 * as long as a scan, build or rewrite takes, for what fails on a live
 * database with rows (a NOT NULL column without a default), and for
 * destruction without a verified backup; `warning` (warn) for risky but
 * bounded changes: a brief ACCESS EXCLUSIVE, a change running code may trip
 * on, a statement that always fails inside its transaction (Postgres rolls
 * the migration back, nothing is half applied). `hygiene` rules are warnings
 * at most, type preferences are notes. Typed as a Record so a rule added to MIGRATION_RULES without an
 * entry here does not compile.
 */
export interface RuleInfo {
  category: MigrationCategory;
  severity: Severity;
  /** What the rule is about, for readers of this table (findings carry their own message). */
  title: string;
}

export const RULES: Record<MigrationRuleId, RuleInfo> = {
  'syntax-error': { category: 'syntax', severity: 'error', title: 'Postgres cannot parse the statement' },
  'adding-required-field': {
    category: 'failure',
    severity: 'error',
    title: 'ADD COLUMN … NOT NULL without a default fails on a table with rows',
  },
  'adding-field-with-volatile-default': {
    category: 'rewrite',
    severity: 'error',
    title: 'ADD COLUMN with a volatile default (or serial/identity) rewrites the table under ACCESS EXCLUSIVE',
  },
  'setting-not-null': {
    category: 'locking',
    severity: 'error',
    title: 'SET NOT NULL scans the whole table under ACCESS EXCLUSIVE',
  },
  'dropping-not-null': {
    category: 'compatibility',
    severity: 'warning',
    title: 'DROP NOT NULL lets NULLs in that running code may not expect',
  },
  'foreign-key-without-not-valid': {
    category: 'locking',
    severity: 'error',
    title: 'A foreign key added without NOT VALID checks every row while blocking writes to both tables',
  },
  'check-without-not-valid': {
    category: 'locking',
    severity: 'error',
    title: 'A check constraint added without NOT VALID scans every row under ACCESS EXCLUSIVE',
  },
  'validate-in-same-transaction': {
    category: 'locking',
    severity: 'error',
    title: "VALIDATE CONSTRAINT in the transaction that added it keeps the ADD's lock through the scan",
  },
  'unique-constraint-without-index': {
    category: 'locking',
    severity: 'error',
    title: 'A UNIQUE or PRIMARY KEY constraint without USING INDEX builds its index under ACCESS EXCLUSIVE',
  },
  'changing-column-type': {
    category: 'rewrite',
    severity: 'error',
    title: 'ALTER COLUMN TYPE rewrites the table (and its indexes) under ACCESS EXCLUSIVE',
  },
  'table-rewrite': {
    category: 'rewrite',
    severity: 'error',
    title: 'The statement rewrites the whole table under ACCESS EXCLUSIVE',
  },
  'vacuum-full': {
    category: 'rewrite',
    severity: 'error',
    title: 'VACUUM FULL rewrites the table under ACCESS EXCLUSIVE; use pg_repack',
  },
  cluster: {
    category: 'rewrite',
    severity: 'error',
    title: 'CLUSTER rewrites the table under ACCESS EXCLUSIVE; use pg_repack',
  },
  'explicit-lock': {
    category: 'locking',
    severity: 'warning',
    title: 'LOCK TABLE holds a strong lock until the transaction ends',
  },
  'dropping-column': { category: 'destructive', severity: 'error', title: "DROP COLUMN destroys the column's data" },
  'dropping-table': { category: 'destructive', severity: 'error', title: 'DROP TABLE destroys the table and its data' },
  'dropping-schema': {
    category: 'destructive',
    severity: 'error',
    title: 'DROP SCHEMA destroys the schema (with CASCADE, everything in it)',
  },
  'dropping-database': { category: 'destructive', severity: 'error', title: 'DROP DATABASE destroys the database' },
  'drop-cascade': {
    category: 'destructive',
    severity: 'error',
    title: 'DROP … CASCADE also drops every object that depends on it',
  },
  'truncating-table': {
    category: 'destructive',
    severity: 'error',
    title: 'TRUNCATE deletes every row under ACCESS EXCLUSIVE',
  },
  'truncate-cascade': {
    category: 'destructive',
    severity: 'error',
    title: 'TRUNCATE … CASCADE also empties every table with a foreign key to it',
  },
  'update-without-where': {
    category: 'destructive',
    severity: 'error',
    title: 'UPDATE without WHERE overwrites every row',
  },
  'delete-without-where': {
    category: 'destructive',
    severity: 'error',
    title: 'DELETE without WHERE deletes every row',
  },
  'backfill-in-schema-transaction': {
    category: 'locking',
    severity: 'error',
    title:
      'A data change in the transaction that took ACCESS EXCLUSIVE on its table keeps everyone out until the ' +
      'backfill commits',
  },
  'renaming-column': {
    category: 'compatibility',
    severity: 'warning',
    title: 'Renaming a column breaks running code that still uses the old name',
  },
  'renaming-table': {
    category: 'compatibility',
    severity: 'warning',
    title: 'Renaming a table breaks running code that still uses the old name',
  },
  'index-without-concurrently': {
    category: 'locking',
    severity: 'error',
    title: 'CREATE INDEX without CONCURRENTLY blocks writes for the whole build',
  },
  'drop-index-without-concurrently': {
    category: 'locking',
    severity: 'warning',
    title: 'DROP INDEX without CONCURRENTLY takes ACCESS EXCLUSIVE on the table',
  },
  'reindex-without-concurrently': {
    category: 'locking',
    severity: 'error',
    title: 'REINDEX without CONCURRENTLY blocks writes (and reads through the index) for the whole build',
  },
  'detach-partition-without-concurrently': {
    category: 'locking',
    severity: 'warning',
    title: 'DETACH PARTITION without CONCURRENTLY takes ACCESS EXCLUSIVE on the parent table',
  },
  'not-allowed-in-transaction': {
    category: 'failure',
    severity: 'warning',
    title: 'The statement cannot run inside a transaction block: the migration fails there and rolls back',
  },
  'transaction-nesting': {
    category: 'transaction',
    severity: 'warning',
    title: 'BEGIN inside a transaction, or COMMIT/ROLLBACK outside one: the migration is not atomic as written',
  },
  'uncommitted-transaction': {
    category: 'transaction',
    severity: 'warning',
    title: 'BEGIN without COMMIT: what happens to the open transaction depends on the tool',
  },
  'enum-value-ordering': {
    category: 'hygiene',
    severity: 'note',
    title: "ADD VALUE without BEFORE/AFTER appends the value at the end of the enum's order",
  },
  'enum-value-used-in-transaction': {
    category: 'failure',
    severity: 'warning',
    title: 'A value added to an enum cannot be used in the same transaction: the migration fails there and rolls back',
  },
  'prefer-identity': { category: 'hygiene', severity: 'note', title: 'serial columns: prefer GENERATED … AS IDENTITY' },
  'prefer-jsonb': { category: 'hygiene', severity: 'note', title: 'json columns: prefer jsonb' },
  'prefer-bigint-ids': { category: 'hygiene', severity: 'note', title: 'integer ids run out at 2^31; prefer bigint' },
  'prefer-timestamptz': {
    category: 'hygiene',
    severity: 'note',
    title: 'timestamp without time zone: prefer timestamptz',
  },
  'prefer-robust-stmts': {
    category: 'hygiene',
    severity: 'note',
    title: 'Outside a transaction, a migration that fails half way cannot be re-run without IF [NOT] EXISTS',
  },
  'require-lock-timeout': {
    category: 'hygiene',
    severity: 'warning',
    title: 'No lock_timeout before a statement that takes a strong lock: waiting for it queues every query behind',
  },
  'require-statement-timeout': {
    category: 'hygiene',
    severity: 'warning',
    title: 'No statement_timeout before a statement that can run long',
  },
};
