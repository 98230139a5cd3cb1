import { conflict } from '../shared/errors.js';

/**
 * A status machine as data: each status lists the statuses it may move to.
 * Terminal statuses are the ones with no moves, derived here, so a machine
 * names them exactly once (in its table).
 */
export interface Machine<S extends string> {
  /** Every status, in table order (API enums and docs list them in this order). */
  readonly statuses: readonly S[];
  readonly terminal: readonly S[];
  /** Where `from` may go; empty for a terminal or unknown status. */
  allowed(from: string): readonly S[];
  /** Whether `from → to` is a move of the table (staying put is not a move). */
  canMove(from: string, to: string): boolean;
  /** Throws 409 naming the move and the allowed ones unless `from → to` is a move; `what` names it ("A task"). */
  assertMove(from: string, to: string, what: string): void;
  isTerminal(status: string): boolean;
}

export function defineMachine<const T extends { readonly [K in keyof T]: readonly (keyof T & string)[] }>(
  table: T,
): Machine<keyof T & string> {
  type S = keyof T & string;
  const statuses = Object.keys(table) as S[];
  const terminal = statuses.filter((s) => table[s].length === 0);
  const allowed = (from: string): readonly S[] => (Object.hasOwn(table, from) ? table[from as S] : []);
  return {
    statuses,
    terminal,
    allowed,
    canMove: (from, to) => (allowed(from) as readonly string[]).includes(to),
    assertMove(from, to, what) {
      if (!this.canMove(from, to))
        throw conflict(`${what} cannot move from ${from} to ${to}`, { from, to, allowed: allowed(from) });
    },
    isTerminal: (status) => (terminal as readonly string[]).includes(status),
  };
}
