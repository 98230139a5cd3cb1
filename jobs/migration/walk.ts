import type { Node, RangeVar } from 'libpg-query';
import { as, kindOf, relationName, stringLiterals } from './ast.js';
import { newMigrationState, RuleContext, type BatchState, type Emitted } from './analyze.js';
import { statementLock } from './locks.js';
import type { ParsedMigration } from './parse.js';
import type { PostCheckDraft } from './post-checks.js';
import { alterTableRules } from './rules-alter.js';
import { createTableRules, setRules, timeoutRules } from './rules-hygiene.js';
import { enumUseRule, statementRules } from './rules-statements.js';

/**
 * Walks one migration's statements in order through every rule, carrying the
 * state rules depend on (open transaction, timeouts set, tables this batch
 * created, enum values and NOT VALID constraints of the open transaction).
 */

export interface WalkedMigration {
  findings: Emitted[];
  checks: PostCheckDraft[];
  transaction: 'explicit' | 'assumed' | 'none';
}

const DATA_CHANGES = new Set(['UpdateStmt', 'DeleteStmt', 'InsertStmt', 'MergeStmt']);

/** The existing tables a statement works on (empty for statements on other objects). */
function relationsOf(node: Node): RangeVar[] {
  const kind = kindOf(node);
  const fields = (node as unknown as Record<string, Record<string, unknown>>)[kind] ?? {};
  const single = fields.relation as RangeVar | undefined;
  const many = [...((fields.relations as Node[] | undefined) ?? []), ...((fields.rels as Node[] | undefined) ?? [])]
    .map((n) => as<RangeVar>(n, 'RangeVar') ?? as<{ relation?: RangeVar }>(n, 'VacuumRelation')?.relation)
    .filter((r): r is RangeVar => Boolean(r));
  return [...(single && kind !== 'CreateStmt' ? [single] : []), ...many];
}

export function walkMigration(
  parsed: ParsedMigration,
  batch: BatchState,
  assumeInTransaction: boolean,
): WalkedMigration {
  const m = newMigrationState(assumeInTransaction);
  const findings: Emitted[] = [];
  const checks: PostCheckDraft[] = [];
  for (const stmt of parsed.statements) {
    const ctx = new RuleContext(m, batch, stmt);
    const node = stmt.node;
    const kind = kindOf(node);
    enumUseRule(ctx, kind === 'AlterEnumStmt' ? [] : stringLiterals(node));
    const rels = relationsOf(node);
    const lock = statementLock(node);
    timeoutRules(
      ctx,
      lock,
      rels.length === 0 ? lock !== null : rels.some((r) => !ctx.isNew(r)),
      DATA_CHANGES.has(kind),
    );
    if (lock === 'ACCESS EXCLUSIVE' && ctx.inTransaction())
      for (const r of rels) if (!ctx.isNew(r)) m.exclusiveInTx.add(relationName(r).toLowerCase());
    if (kind === 'AlterTableStmt') alterTableRules(ctx, node);
    else if (kind === 'CreateStmt') createTableRules(ctx, node);
    else if (kind === 'CreateTableAsStmt') ctx.remember(as<{ into?: { rel?: RangeVar } }>(node, kind)?.into?.rel);
    else if (kind === 'VariableSetStmt') setRules(ctx, node);
    else statementRules(ctx, node);
    findings.push(...ctx.findings);
    checks.push(...ctx.checks);
  }
  const last = parsed.statements[parsed.statements.length - 1];
  if (m.explicitTx && last) {
    const ctx = new RuleContext(m, batch, last);
    ctx.emit('uncommitted-transaction', {
      lock: null,
      message:
        'the migration opens a transaction it never commits: depending on the tool it is committed, rolled ' +
        'back, or left open holding its locks',
      safeRewrite: ['COMMIT;  -- at the end of the migration'],
    });
    findings.push(...ctx.findings);
  }
  return { findings, checks, transaction: m.sawBegin ? 'explicit' : assumeInTransaction ? 'assumed' : 'none' };
}
