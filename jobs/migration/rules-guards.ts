/** Guards shared by the statement rules: statements Postgres refuses in a transaction, and re-runnable DDL. */
import type { RuleContext } from './analyze.js';
import { statementLock } from './locks.js';

const OUTSIDE_TX = [
  "-- run it in a migration of its own, outside a transaction (turn the tool's transaction off for that migration)",
];

export function notInTransaction(ctx: RuleContext, what: string): void {
  if (ctx.inTransaction())
    ctx.emit('not-allowed-in-transaction', {
      lock: statementLock(ctx.stmt.node),
      message:
        `${what} cannot run inside a transaction block: the migration fails ` +
        `here${
          ctx.m.assumeInTransaction && !ctx.m.explicitTx
            ? ' (the tool wraps the migration ' + 'in one: assumeInTransaction)'
            : ''
        }`,
      safeRewrite: OUTSIDE_TX,
    });
}

export function robust(ctx: RuleContext, ok: boolean | undefined, what: string, fix: string): void {
  if (!ok && !ctx.inTransaction())
    ctx.emit('prefer-robust-stmts', {
      lock: statementLock(ctx.stmt.node),
      message: `${what} runs outside a transaction: if the migration fails after it, re-running it fails here`,
      safeRewrite: [fix],
    });
}
