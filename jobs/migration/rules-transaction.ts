/** Transaction control (BEGIN/COMMIT/ROLLBACK) and enum values added and used within a transaction. */
import type { AlterEnumStmt, TransactionStmt } from 'libpg-query';
import { literal, strings } from './ast.js';
import type { RuleContext } from './analyze.js';
import { statementLock } from './locks.js';
import { postChecks } from './post-checks.js';

export function transactionRules(ctx: RuleContext, s: TransactionStmt): void {
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

export function enumRules(ctx: RuleContext, s: AlterEnumStmt): void {
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
