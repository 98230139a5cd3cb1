import { Type, type Static } from '@sinclair/typebox';
import { SeveritySchema, VerdictSchema } from '../../shared/schemas/analysis.js';
import { Ok, StringEnum, Timestamp } from '../../shared/schemas/common.js';

/**
 * POST /v1/database/migration/validate: migrations parsed with the real
 * Postgres parser and judged statement by statement. Nothing is executed.
 */

/** Every rule the validator applies; `ruleId` of a finding. jobs/migration/catalog.ts says what each one means. */
export const MIGRATION_RULES = [
  'syntax-error',
  'adding-required-field',
  'adding-field-with-volatile-default',
  'setting-not-null',
  'dropping-not-null',
  'foreign-key-without-not-valid',
  'check-without-not-valid',
  'validate-in-same-transaction',
  'unique-constraint-without-index',
  'changing-column-type',
  'table-rewrite',
  'vacuum-full',
  'cluster',
  'explicit-lock',
  'dropping-column',
  'dropping-table',
  'dropping-schema',
  'dropping-database',
  'drop-cascade',
  'truncating-table',
  'truncate-cascade',
  'update-without-where',
  'delete-without-where',
  'backfill-in-schema-transaction',
  'renaming-column',
  'renaming-table',
  'index-without-concurrently',
  'drop-index-without-concurrently',
  'reindex-without-concurrently',
  'detach-partition-without-concurrently',
  'not-allowed-in-transaction',
  'transaction-nesting',
  'uncommitted-transaction',
  'enum-value-ordering',
  'enum-value-used-in-transaction',
  'prefer-identity',
  'prefer-jsonb',
  'prefer-bigint-ids',
  'prefer-timestamptz',
  'prefer-robust-stmts',
  'require-lock-timeout',
  'require-statement-timeout',
] as const;
export type MigrationRuleId = (typeof MIGRATION_RULES)[number];

/** What kind of harm a finding is about; `hygiene` findings never raise the verdict above `warn`. */
export const MIGRATION_CATEGORIES = [
  'syntax',
  'locking',
  'rewrite',
  'destructive',
  'failure',
  'compatibility',
  'transaction',
  'hygiene',
] as const;
export type MigrationCategory = (typeof MIGRATION_CATEGORIES)[number];

/** Postgres table lock modes, weakest first. */
export const LOCK_MODES = [
  'ACCESS SHARE',
  'ROW SHARE',
  'ROW EXCLUSIVE',
  'SHARE UPDATE EXCLUSIVE',
  'SHARE',
  'SHARE ROW EXCLUSIVE',
  'EXCLUSIVE',
  'ACCESS EXCLUSIVE',
] as const;
export type LockMode = (typeof LOCK_MODES)[number];

export const ORDERING_ISSUES = [
  'duplicateId',
  'duplicateVersion',
  'outOfOrder',
  'gap',
  'mixedNaming',
  'unversioned',
] as const;
export type OrderingIssueKind = (typeof ORDERING_ISSUES)[number];

export const POST_CHECKS = [
  'constraintValidated',
  'indexValid',
  'notNullEnforced',
  'columnType',
  'rowCount',
  'enumValues',
  'objectDropped',
  'analyzed',
] as const;
export type PostCheckKind = (typeof POST_CHECKS)[number];

export const TRANSACTION_MODES = ['explicit', 'assumed', 'none'] as const;

export const MigrationBackup = Type.Object(
  {
    verified: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true once a restore of this backup was tested; only a verified backup lowers a destructive change ' +
          'from block to warn',
      }),
    ),
    takenAt: Type.Optional(Timestamp),
    location: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: true },
);

export const MigrationValidate = Type.Object(
  {
    migrations: Type.Array(
      Type.Object(
        { id: Type.String({ minLength: 1, maxLength: 200 }), sql: Type.String({ maxLength: 500_000 }) },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 500, description: 'In the order they would be applied' },
    ),
    backup: Type.Optional(MigrationBackup),
    dialect: Type.String({
      default: 'postgres',
      maxLength: 50,
      description: 'Only `postgres` (or `postgresql`) is supported; others answer 422',
    }),
    assumeInTransaction: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'The migration tool wraps each migration in a transaction (knex, Rails, Django and Flyway do by default)',
      }),
    ),
  },
  { $id: 'MigrationValidateRequest', additionalProperties: true },
);
export type MigrationValidate = Static<typeof MigrationValidate>;

export const StatementRef = Type.Object({
  index: Type.Integer({ description: 'Position of the statement in its migration, from 0' }),
  text: Type.String({ description: 'The statement as written (at most 1000 characters)' }),
  position: Type.Object({
    offset: Type.Integer({ description: 'Characters from the start of the migration, from 0' }),
    line: Type.Integer({ description: 'From 1' }),
    column: Type.Integer({ description: 'From 1' }),
  }),
});

export const MigrationFinding = Type.Object({
  ruleId: StringEnum(MIGRATION_RULES),
  severity: SeveritySchema,
  category: StringEnum(MIGRATION_CATEGORIES),
  statement: StatementRef,
  lock: Type.Union([StringEnum(LOCK_MODES), Type.Null()], {
    description: 'The strongest table lock the statement takes (null: none on an existing table)',
  }),
  rewrite: Type.Boolean({ description: 'Whether the statement rewrites the table' }),
  message: Type.String(),
  safeRewrite: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'The safe sequence to use instead, one statement or step per entry',
  }),
  backupLowered: Type.Boolean({
    description: 'A destructive change lowered from error to warning by a verified backup',
  }),
});
export type MigrationFinding = Static<typeof MigrationFinding>;

export const MigrationReport = Type.Object({
  id: Type.String(),
  verdict: VerdictSchema,
  statements: Type.Integer(),
  transaction: StringEnum(TRANSACTION_MODES, {
    description: '`explicit`: BEGIN … COMMIT in the SQL; `assumed`: assumeInTransaction; `none`',
  }),
  findings: Type.Array(MigrationFinding, { description: 'At most 200, in statement order; the verdict counts all' }),
  omitted: Type.Integer({ description: 'Findings past the first 200: counted, not listed' }),
});

export const OrderingIssue = Type.Object({
  kind: StringEnum(ORDERING_ISSUES),
  severity: SeveritySchema,
  ids: Type.Array(Type.String()),
  message: Type.String(),
});
export type OrderingIssue = Static<typeof OrderingIssue>;

export const PostCheck = Type.Object({
  migrationId: Type.String(),
  kind: StringEnum(POST_CHECKS),
  target: Type.String({ description: 'The table, index, constraint or type to look at' }),
  sql: Type.String({ description: 'A read-only query to run after applying' }),
  expect: Type.String(),
  why: Type.String(),
});
export type PostCheck = Static<typeof PostCheck>;

export const MigrationValidateResult = Ok(
  {
    verdict: VerdictSchema,
    dialect: Type.Literal('postgres'),
    parser: Type.Object({ name: Type.String(), postgresVersion: Type.String() }),
    executed: Type.Literal(false, { description: 'Validation parses; it never runs a statement' }),
    backup: Type.Object({
      provided: Type.Boolean(),
      verified: Type.Boolean(),
      takenAt: Type.Union([Type.String(), Type.Null()]),
      location: Type.Union([Type.String(), Type.Null()]),
      note: Type.String(),
    }),
    migrations: Type.Array(MigrationReport),
    orderingIssues: Type.Array(OrderingIssue),
    postChecks: Type.Array(PostCheck, { description: 'At most 500' }),
    summary: Type.Object({
      migrations: Type.Integer(),
      statements: Type.Integer(),
      errors: Type.Integer(),
      warnings: Type.Integer(),
      notes: Type.Integer(),
      postChecksOmitted: Type.Integer(),
    }),
  },
  'MigrationValidateResult',
);
export type MigrationValidateResult = Static<typeof MigrationValidateResult>;
