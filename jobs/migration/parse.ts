import type { Node } from 'libpg-query';

/**
 * Migrations through the real Postgres parser (libpg_query compiled to
 * WebAssembly): the statements exactly as Postgres would read them, each with
 * where it starts in the migration. Nothing here can run SQL: the parser is
 * Postgres' grammar alone, with no executor and no connection.
 *
 * libpg_query reports statement and token positions in UTF-8 bytes; answers
 * speak in characters, lines and columns, so positions are converted.
 */

export interface Position {
  /** Characters from the start of the migration, from 0. */
  offset: number;
  line: number;
  column: number;
}

export interface Statement extends Position {
  index: number;
  node: Node;
  text: string;
}

export interface SyntaxProblem extends Position {
  index: number;
  text: string;
  message: string;
}

export interface ParsedMigration {
  statements: Statement[];
  syntaxErrors: SyntaxProblem[];
}

/** The Postgres release whose grammar the parser carries (libpg-query 18). */
export let PARSER_POSTGRES_VERSION = '';

/**
 * The parser (WebAssembly, about 18 MB), loaded on the first validation: a process that validates nothing does not
 * carry it.
 */
let pg: typeof import('libpg-query');
const parseSync = (sql: string) => pg.parseSync(sql);
const scanSync = (sql: string) => pg.scanSync(sql);

let loading: Promise<void> | null = null;
async function ready(): Promise<void> {
  loading ??= import('libpg-query').then(async (m) => {
    pg = m;
    await m.loadModule();
    const version = Number(parseSync('SELECT 1').version ?? 0); // 180004 → 18.4
    PARSER_POSTGRES_VERSION = `${Math.floor(version / 10_000)}.${version % 10_000}`;
  });
  await loading;
}

/** Maps UTF-8 byte offsets of `sql` to character offsets, and character offsets to lines and columns. */
class Positions {
  private readonly charAtByte: Int32Array | null = null;
  private readonly lineStarts: number[] = [0];

  constructor(private readonly sql: string) {
    if (Buffer.byteLength(sql) !== sql.length) {
      this.charAtByte = new Int32Array(Buffer.byteLength(sql) + 1);
      let byte = 0;
      let char = 0;
      for (const ch of sql) {
        const width = Buffer.byteLength(ch);
        for (let k = 0; k < width; k++) this.charAtByte[byte + k] = char;
        byte += width;
        char += ch.length;
      }
      this.charAtByte[byte] = char;
    }
    for (let i = 0; i < sql.length; i++) if (sql[i] === '\n') this.lineStarts.push(i + 1);
  }

  char(byteOffset: number): number {
    if (!this.charAtByte) return Math.min(byteOffset, this.sql.length);
    return this.charAtByte[Math.min(Math.max(byteOffset, 0), this.charAtByte.length - 1)]!;
  }

  at(offset: number): Position {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { offset, line: lo + 1, column: offset - this.lineStarts[lo]! + 1 };
  }
}

interface Token {
  start: number;
  end: number;
  tokenName: string;
}

/**
 * Tokens by the Postgres scanner (comments included), or null when the text cannot even be tokenized (an unterminated
 * quote).
 */
function tokens(sql: string): Token[] | null {
  try {
    return scanSync(sql).tokens;
  } catch {
    return null;
  }
}

/**
 * Index of the first token starting at or after `byte` (tokens are in order: a binary search, so 100,000 statements
 * stay linear).
 */
function firstTokenAt(all: Token[], byte: number): number {
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (all[mid]!.start < byte) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const isComment = (t: Token) => t.tokenName === 'SQL_COMMENT' || t.tokenName === 'C_COMMENT';

function syntaxMessage(err: unknown): { message: string; cursor: number | null } {
  const details = (err as { sqlDetails?: { message?: string; cursorPosition?: number } }).sqlDetails;
  const message = details?.message ?? (err instanceof Error ? err.message : 'syntax error');
  return { message, cursor: typeof details?.cursorPosition === 'number' ? details.cursorPosition : null };
}

/**
 * Statements of one chunk of SQL (the whole migration, or one `;`-separated
 * piece of it when the whole does not parse). `base` is the chunk's byte
 * offset in the migration.
 */
function statementsOf(chunk: string, base: number, all: Token[], pos: Positions) {
  const { stmts = [] } = parseSync(chunk);
  const chunkBytes = Buffer.byteLength(chunk);
  return stmts.map((s) => {
    const from = base + (s.stmt_location ?? 0);
    const to = base + (s.stmt_len ? (s.stmt_location ?? 0) + s.stmt_len : chunkBytes);
    // The statement starts at its first token that is not a comment (stmt_location includes the comments and spaces
    // before it).
    let k = firstTokenAt(all, from);
    while (k < all.length && isComment(all[k]!)) k += 1;
    const first = k < all.length && all[k]!.start < to ? all[k] : undefined;
    const start = pos.char(first?.start ?? from);
    return { node: s.stmt as Node, start, end: pos.char(to) };
  });
}

/** Parses one migration. A syntax error does not hide the rest: each `;`-separated piece is then parsed on its own. */
export async function parseMigration(sql: string): Promise<ParsedMigration> {
  await ready();
  const pos = new Positions(sql);
  const toks = tokens(sql);
  const statement = (index: number, node: Node, start: number, end: number): Statement => ({
    index,
    node,
    text: sql.slice(start, end).trim(),
    ...pos.at(start),
  });
  try {
    const found = statementsOf(sql, 0, toks ?? [], pos);
    return { statements: found.map((s, i) => statement(i, s.node, s.start, s.end)), syntaxErrors: [] };
  } catch (err) {
    if (!toks) {
      const { message, cursor } = syntaxMessage(err);
      const at = Math.min(cursor ?? 0, sql.length);
      return { statements: [], syntaxErrors: [{ index: 0, text: sql.trim().slice(0, 1000), message, ...pos.at(at) }] };
    }
  }
  // Pieces between top-level semicolons (the scanner keeps quoted and dollar-quoted text whole).
  const bytes = Buffer.from(sql);
  const cuts = [0, ...toks.filter((t) => t.tokenName === 'ASCII_59').map((t) => t.end), bytes.length];
  const statements: Statement[] = [];
  const syntaxErrors: SyntaxProblem[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const from = cuts[k]!;
    const piece = bytes.subarray(from, cuts[k + 1]!).toString('utf8');
    let first = firstTokenAt(toks, from);
    while (first < toks.length && isComment(toks[first]!)) first += 1;
    // only comments and the semicolon
    if (first >= toks.length || toks[first]!.start >= cuts[k + 1]! || toks[first]!.tokenName === 'ASCII_59') continue;
    const index = statements.length + syntaxErrors.length;
    try {
      for (const s of statementsOf(piece, from, toks, pos))
        statements.push(statement(statements.length + syntaxErrors.length, s.node, s.start, s.end));
    } catch (err) {
      const { message, cursor } = syntaxMessage(err);
      const start = pos.char(from);
      const at = cursor === null ? start : start + cursor;
      syntaxErrors.push({ index, text: sql.slice(start, pos.char(cuts[k + 1]!)).trim(), message, ...pos.at(at) });
    }
  }
  return { statements, syntaxErrors };
}

/** Whether `sql` is one or more statements Postgres can parse. */
export async function parsesCleanly(sql: string): Promise<boolean> {
  await ready();
  try {
    return (parseSync(sql).stmts ?? []).length > 0;
  } catch {
    return false;
  }
}
