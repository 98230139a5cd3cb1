import type { PostCheck } from './schemas.js';
import { ident, literal } from './ast.js';

/**
 * What to verify once a migration is applied, as read-only queries against
 * the catalog: a NOT VALID constraint that was validated, a concurrently
 * built index that is valid (a failed CONCURRENTLY build leaves an invalid
 * one behind that still slows writes), row counts after data changes.
 * `table` is SQL (already quoted); names are plain.
 */
export type PostCheckDraft = Omit<PostCheck, 'migrationId'>;

export const postChecks = {
  constraintValidated(table: string, constraint: string, validatedHere: boolean): PostCheckDraft {
    return {
      kind: 'constraintValidated',
      target: `${table}.${constraint}`,
      sql:
        `SELECT convalidated FROM pg_constraint WHERE conrelid = ${literal(table)}::regclass AND conname = ` +
        `${literal(constraint)};`,
      expect: 'true',
      why: validatedHere
        ? 'VALIDATE CONSTRAINT ran; a constraint left NOT VALID is not enforced for existing rows'
        : `the constraint was added NOT VALID and not validated here: run ALTER TABLE ${table} VALIDATE ` +
          `CONSTRAINT ${ident(constraint)} in a later migration`,
    };
  },
  indexValid(table: string, index: string | null): PostCheckDraft {
    return {
      kind: 'indexValid',
      target: index ?? table,
      sql:
        `SELECT indexrelid::regclass AS index, indisvalid, indisready FROM pg_index WHERE indrelid = ` +
        `${literal(table)}::regclass AND NOT (indisvalid AND indisready);`,
      expect: 'no rows',
      why:
        'a CONCURRENTLY build that failed or was cancelled leaves an INVALID index that is not used for reads ' +
        'but still slows writes: drop it (DROP INDEX CONCURRENTLY) and build again',
    };
  },
  notNullEnforced(table: string, column: string): PostCheckDraft {
    return {
      kind: 'notNullEnforced',
      target: `${table}.${column}`,
      sql:
        `SELECT attnotnull FROM pg_attribute WHERE attrelid = ${literal(table)}::regclass AND attname = ` +
        `${literal(column)};`,
      expect: 'true',
      why: 'the column rejects NULLs now; the helper CHECK constraint of the safe sequence can be dropped',
    };
  },
  columnType(table: string, column: string, type: string): PostCheckDraft {
    return {
      kind: 'columnType',
      target: `${table}.${column}`,
      sql:
        `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = ` +
        `${literal(table)}::regclass AND attname = ${literal(column)};`,
      expect: type,
      why: 'the type change took effect; run ANALYZE on the table since its statistics for the column were reset',
    };
  },
  rowCount(table: string, what: string): PostCheckDraft {
    return {
      kind: 'rowCount',
      target: table,
      sql: `SELECT count(*) FROM ${table};`,
      expect: what,
      why:
        'record the count before applying: a data change that touched more (or fewer) rows than intended is ' +
        'found now, not by users',
    };
  },
  enumValues(type: string, value: string): PostCheckDraft {
    return {
      kind: 'enumValues',
      target: type,
      sql: `SELECT enumlabel FROM pg_enum WHERE enumtypid = ${literal(type)}::regtype ORDER BY enumsortorder;`,
      expect: `${literal(value)} present, in the position the application sorts by`,
      why: 'ORDER BY and comparisons on an enum follow its declared order, not the alphabet',
    };
  },
  objectDropped(table: string): PostCheckDraft {
    return {
      kind: 'objectDropped',
      target: table,
      sql: `SELECT to_regclass(${literal(table)});`,
      expect: 'NULL',
      why: 'the table is gone; keep the backup until no code or report asks for it',
    };
  },
  analyzed(table: string): PostCheckDraft {
    return {
      kind: 'analyzed',
      target: table,
      sql: `SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE relid = ${literal(table)}::regclass;`,
      expect: 'a time after the migration (run ANALYZE otherwise)',
      why: 'a rewritten table or column starts without planner statistics; queries plan badly until it is analyzed',
    };
  },
};
