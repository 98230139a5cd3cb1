import type { RangeVar } from 'libpg-query';
import type { LockMode, MigrationRuleId } from './schemas.js';
import { relationName } from './ast.js';
import type { Statement } from './parse.js';
import type { PostCheckDraft } from './post-checks.js';

/**
 * The state rules read while a batch of migrations is walked in order, one
 * statement at a time: whether a transaction is open, which timeouts are set,
 * which tables this batch created (statements on them touch no live data),
 * which enum values and NOT VALID constraints the open transaction added.
 */

export interface Emitted {
  ruleId: MigrationRuleId;
  statement: Statement;
  lock: LockMode | null;
  rewrite: boolean;
  message: string;
  safeRewrite: string[] | null;
}

type Timeout = 'session' | 'local' | null;

export interface MigrationState {
  /** The tool wraps the migration in a transaction (until the SQL's own COMMIT ends it). */
  assumeInTransaction: boolean;
  /** A BEGIN written in the SQL is open (Postgres does not nest transactions). */
  explicitTx: boolean;
  sawBegin: boolean;
  lockTimeout: Timeout;
  statementTimeout: Timeout;
  /** Rules reported once per migration (the timeouts). */
  reported: Set<MigrationRuleId>;
  /** Enum values added in the open transaction: value → type. */
  enumValuesInTx: Map<string, string>;
  /** Constraints added NOT VALID in the open transaction. */
  notValidInTx: Set<string>;
  /** Existing tables the open transaction holds ACCESS EXCLUSIVE on (lower-case names as written). */
  exclusiveInTx: Set<string>;
}

export interface BatchState {
  /** Tables created earlier in this batch, by `schema.name` and by bare name. */
  created: Set<string>;
}

export function newMigrationState(assumeInTransaction: boolean): MigrationState {
  return {
    assumeInTransaction,
    explicitTx: false,
    sawBegin: false,
    lockTimeout: null,
    statementTimeout: null,
    reported: new Set(),
    enumValuesInTx: new Map(),
    notValidInTx: new Set(),
    exclusiveInTx: new Set(),
  };
}

export class RuleContext {
  readonly findings: Emitted[] = [];
  readonly checks: PostCheckDraft[] = [];

  constructor(
    readonly m: MigrationState,
    readonly batch: BatchState,
    public stmt: Statement,
  ) {}

  emit(
    ruleId: MigrationRuleId,
    f: { message: string; lock: LockMode | null; rewrite?: boolean; safeRewrite?: string[] | null },
  ): void {
    this.findings.push({
      ruleId,
      statement: this.stmt,
      lock: f.lock,
      rewrite: f.rewrite ?? false,
      message: f.message,
      safeRewrite: f.safeRewrite ?? null,
    });
  }

  /** Reports a rule at most once per migration. */
  emitOnce(ruleId: MigrationRuleId, f: Parameters<RuleContext['emit']>[1]): void {
    if (this.m.reported.has(ruleId)) return;
    this.m.reported.add(ruleId);
    this.emit(ruleId, f);
  }

  check(draft: PostCheckDraft): void {
    this.checks.push(draft);
  }

  inTransaction(): boolean {
    return this.m.explicitTx || this.m.assumeInTransaction;
  }

  /** A table created earlier in this batch holds no live rows and no one else waits on it. */
  isNew(rel: RangeVar | undefined): boolean {
    if (!rel?.relname) return false;
    return (
      this.batch.created.has(relationName(rel).toLowerCase()) ||
      (!rel.schemaname && this.batch.created.has(rel.relname.toLowerCase()))
    );
  }

  remember(rel: RangeVar | undefined): void {
    if (!rel?.relname) return;
    this.batch.created.add(relationName(rel).toLowerCase());
    this.batch.created.add(rel.relname.toLowerCase());
  }
}
