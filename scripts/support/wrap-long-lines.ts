/**
 * Breaks the lines over 120 columns that prettier leaves as they are, in every .ts and .tsx file of the tree (the
 * same files as test/unit/line-length.test.ts). Run it after `npx prettier --write .`, then run prettier again:
 *
 *   node --import tsx scripts/support/wrap-long-lines.ts [--check]
 *
 * - a `//` comment line is reflowed into several at the same indent; a `//` comment after code moves above it;
 * - a line of a block comment (` * …`) is reflowed with the same prefix; a one-line `/** … *\/` becomes a block;
 * - a string literal in an expression is split at spaces into `'…' + '…'` (same quotes, escapes kept whole); never a
 *   template or regex literal, nor a string whose type may be its literal (a type, a case, `as const`, Literal()).
 * What it cannot break (regexes, templates, words or URLs longer than a line, code) it prints as file:line.
 * It reads code with the TypeScript 6 parser that the lint toolchain has (tools/lint), since TypeScript 7, the
 * compiler, has no JS API. A second run changes nothing. With --check it writes nothing and exits 1 on a change.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The types of that same TypeScript 6 (the root's typescript is 7, whose package has no JS API to type).
import type * as TS from '../../tools/lint/node_modules/typescript/lib/typescript.js';

const ts = createRequire(new URL('../../tools/lint/index.js', import.meta.url))('typescript') as typeof TS;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX = 120;
/** Room kept for what prettier adds around a piece of a split string: deeper indent, the quotes, ` +`. */
const STRING_SLACK = 12;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git', '.data']);
const SKIPPED_PATHS = new Set(['test/fixtures']);

type Edit = { start: number; end: number; text: string };
const width = (s: string) => [...s].length;

function sourceFiles(rel: string): string[] {
  return readdirSync(path.join(ROOT, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      return SKIPPED_DIRS.has(entry.name) || SKIPPED_PATHS.has(child) ? [] : sourceFiles(child);
    }
    return /\.tsx?$/.test(entry.name) ? [child] : [];
  });
}

/** Words into lines of at most `room` columns; a word longer than that stays whole on a line of its own. */
function fill(words: string[], room: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && width(line) + 1 + width(word) > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A comment's text as lines that start with `prefix` (and `hang` after the first), within MAX columns. */
function reflow(prefix: string, text: string): string[] {
  // A list item's continuation lines hang under its text, as markdown reads them.
  const lead = /^(\s*)((?:[-*+]|\d+[.)])\s+)?/.exec(text)!;
  const hang = lead[1]! + ' '.repeat(width(lead[2] ?? ''));
  const words = text.slice(lead[0].length).split(/\s+/).filter(Boolean);
  const room = MAX - width(prefix) - width(hang);
  return fill(words, room).map((l, i) => `${prefix}${i === 0 ? lead[0] : hang}${l}`.trimEnd());
}

/** Nodes whose string literal must stay one literal: its type is its text, or it is not an expression. */
function mustStayWhole(node: TS.StringLiteral | TS.TemplateLiteral): boolean {
  const parent = node.parent;
  if (
    ts.isImportDeclaration(parent) ||
    ts.isExportDeclaration(parent) ||
    ts.isExternalModuleReference(parent) ||
    ts.isImportTypeNode(parent) ||
    ts.isModuleDeclaration(parent) ||
    ts.isLiteralTypeNode(parent) ||
    ts.isCaseClause(parent) ||
    ts.isExpressionStatement(parent) ||
    ts.isJsxAttribute(parent) ||
    ts.isEnumMember(parent) ||
    ((ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isGetAccessor(parent) ||
      ts.isSetAccessor(parent)) &&
      parent.name === node)
  ) {
    return true;
  }
  // A literal whose type is kept: `as const`, `satisfies`, a TypeBox Literal().
  for (let n: TS.Node = node; !ts.isBlock(n) && !ts.isSourceFile(n); n = n.parent) {
    if ((ts.isAsExpression(n) || ts.isTypeAssertionExpression(n)) && n.type.getText() === 'const') return true;
    if (ts.isSatisfiesExpression(n)) return true;
    if (ts.isCallExpression(n) && /(^|\.)Literal$/.test(n.expression.getText())) return true;
    if (ts.isStatement(n) || ts.isFunctionLike(n)) break;
  }
  return false;
}

/** Whether `'a' + 'b'` may stand where the literal stands without parentheses (+ binds tighter than these). */
function bareConcatFits(node: TS.Expression): boolean {
  const p = node.parent;
  if (ts.isBinaryExpression(p)) {
    const op = p.operatorToken.kind;
    const k = ts.SyntaxKind;
    return [
      k.PlusToken,
      k.EqualsEqualsEqualsToken,
      k.ExclamationEqualsEqualsToken,
      k.EqualsEqualsToken,
      k.ExclamationEqualsToken,
      k.QuestionQuestionToken,
      k.BarBarToken,
      k.AmpersandAmpersandToken,
      k.EqualsToken,
      k.PlusEqualsToken,
      k.CommaToken,
    ].includes(op);
  }
  return (
    ts.isCallExpression(p) ||
    ts.isNewExpression(p) ||
    ts.isPropertyAssignment(p) ||
    ts.isVariableDeclaration(p) ||
    ts.isArrayLiteralExpression(p) ||
    ts.isReturnStatement(p) ||
    ts.isThrowStatement(p) ||
    ts.isConditionalExpression(p) ||
    ts.isParenthesizedExpression(p) ||
    ts.isArrowFunction(p) ||
    ts.isTemplateSpan(p) ||
    ts.isSpreadElement(p) ||
    ts.isParameter(p) ||
    ts.isPropertyDeclaration(p) ||
    ts.isJsxExpression(p) ||
    ts.isBindingElement(p)
  );
}

/**
 * Splits the literal's text at spaces into pieces of at most `room` columns; escapes and a template's `${…}`
 * (given as `holes`, offsets in raw) stay whole.
 */
function splitString(raw: string, room: number, holes: Array<[number, number]> = []): string[] | null {
  const quote = raw[0]!;
  const body = raw.slice(1, -1);
  if (/\\\r?\n/.test(body)) return null; // a line continuation: leave it to a person
  const units: string[] = [];
  for (let i = 1; i < raw.length - 1;) {
    const hole = holes.find(([from]) => from === i);
    const unit = hole
      ? raw.slice(hole[0], hole[1])
      : /^(?:\\u\{[0-9a-fA-F]+\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[\s\S]|[\s\S])/u.exec(raw.slice(i))![0];
    units.push(unit);
    i += unit.length;
  }
  // Words keep their trailing spaces, so the pieces join back to the same text.
  const words: string[] = [];
  let word = '';
  for (let i = 0; i < units.length; i++) {
    word += units[i];
    if (units[i] === ' ' && units[i + 1] !== ' ') {
      words.push(word);
      word = '';
    }
  }
  if (word) words.push(word);
  const pieces: string[] = [];
  let piece = '';
  for (const w of words) {
    if (piece && width(piece) + width(w) > room) {
      pieces.push(piece);
      piece = w;
    } else piece += w;
  }
  if (piece) pieces.push(piece);
  return pieces.length < 2 ? null : pieces.map((p) => `${quote}${p}${quote}`);
}

type Found = { edits: Edit[]; left: Map<number, string> };

function wrapFile(file: string, text: string): Found {
  const edits: Edit[] = [];
  const left = new Map<number, string>();
  const lines = text.split('\n');
  const long = new Set(lines.flatMap((l, i) => (width(l) > MAX ? [i] : [])));
  if (long.size === 0) return { edits, left };
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const lineStart = (line: number) => sf.getPositionOfLineAndCharacter(line, 0);
  const indentOf = (line: number) => /^\s*/.exec(lines[line]!)![0];
  /** Records why a line stays long (the first reason found); false, for `return note(…)` where nothing was split. */
  const note = (line: number, what: string): false => {
    if (!left.has(line)) left.set(line, what);
    return false;
  };

  // Every comment once, with whether code precedes it on its line; regexes and templates by line.
  const comments = new Map<number, TS.CommentRange>();
  const regexLines = new Set<number>();
  const templateLines = new Set<number>();
  const inJsx = new Set<number>();
  // Inside a literal that is split already, no literal is split again (their edits would overlap).
  const visit = (node: TS.Node, inSplit = false) => {
    // Around a JSX child, `//` is text, not a comment.
    const jsxChild =
      node.kind === ts.SyntaxKind.JsxText ||
      ts.isJsxElement(node.parent ?? node) ||
      ts.isJsxFragment(node.parent ?? node);
    if (!jsxChild) {
      const around = [
        ...(ts.getLeadingCommentRanges(text, node.pos) ?? []),
        ...(ts.getTrailingCommentRanges(text, node.end) ?? []),
      ];
      for (const r of around) comments.set(r.pos, r);
    }
    const span = (set: Set<number>) => {
      for (let l = lineOf(node.getStart(sf)); l <= lineOf(node.end); l++) set.add(l);
    };
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) span(regexLines);
    if (ts.isTemplateLiteral(node) || ts.isTaggedTemplateExpression(node)) span(templateLines);
    if (ts.isJsxElement(node) || ts.isJsxFragment(node) || ts.isJsxSelfClosingElement(node)) span(inJsx);
    let split = inSplit;
    if (!inSplit && ts.isStringLiteral(node) && long.has(lineOf(node.getStart(sf)))) split = wrapString(node);
    if (
      !inSplit &&
      ts.isTemplateLiteral(node) &&
      !ts.isTaggedTemplateExpression(node.parent) &&
      long.has(lineOf(node.getStart(sf)))
    ) {
      split = wrapString(node);
    }
    for (const child of node.getChildren(sf)) visit(child, split);
  };

  const wrapString = (node: TS.StringLiteral | TS.TemplateLiteral): boolean => {
    const start = node.getStart(sf);
    const line = lineOf(start);
    if (lineOf(node.end) !== line) return false;
    const endColumn = width(text.slice(lineStart(line), node.end));
    // The literal makes its line long when it reaches near the limit (what follows it, `, async () => {`, or `;`,
    // cannot move); a short one beside long code is not worth splitting.
    if (endColumn <= MAX - 40 || width(node.getText(sf)) < 30) return false;
    if (mustStayWhole(node)) return note(line, 'string that must stay one literal');
    const room = MAX - width(indentOf(line)) - STRING_SLACK;
    // A template's substitutions, `${` to `}`, as offsets in its text.
    const holes: Array<[number, number]> = ts.isTemplateExpression(node)
      ? node.templateSpans.map((span, i) => {
          const opened = (i === 0 ? node.head.end : node.templateSpans[i - 1]!.literal.end) - 2 - start;
          return [opened, span.literal.getStart(sf) + 1 - start];
        })
      : [];
    // A literal that fits a line but not beside what follows it (a test title before `, async () => {`) halves.
    const pieces =
      splitString(node.getText(sf), room, holes) ??
      splitString(node.getText(sf), Math.ceil(width(node.getText(sf)) / 2), holes);
    if (!pieces) return note(line, 'string with a word longer than a line');
    const inner = `${indentOf(line)}    `;
    const joined = pieces.join(` +\n${inner}`);
    edits.push({ start, end: node.end, text: bareConcatFits(node) ? joined : `(${joined})` });
    if (pieces.some((p) => width(p) > room + 2)) note(line, 'string with a word longer than a line');
    return true;
  };

  visit(sf);

  for (const c of comments.values()) {
    const line = lineOf(c.pos);
    const raw = text.slice(c.pos, c.end);
    const before = text.slice(lineStart(line), c.pos);
    const alone = before.trim() === '';
    const indent = indentOf(line);
    // Directives (@ts-expect-error, eslint-disable, ///) act on the line that follows: they stay one line.
    if (/^\/\/\/|@ts-|eslint-|prettier-ignore/.test(raw)) {
      if (long.has(line)) note(line, 'directive comment');
      continue;
    }
    if (c.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
      if (!long.has(line)) continue;
      const body = /^\/\/+\s?/.exec(raw)![0];
      const prefix = `${indent}${body.trimEnd()} `;
      const out = reflow(prefix, raw.slice(body.length));
      if (alone) {
        if (out.length < 2) note(line, 'comment with a word longer than a line');
        else edits.push({ start: lineStart(line), end: c.end, text: out.join('\n') });
      } else if (inJsx.has(line) || templateLines.has(line)) {
        note(line, 'comment after code in JSX or a template');
      } else {
        // The comment moves above its line of code (which prettier has already laid out as it likes).
        const codeEnd = lineStart(line) + before.trimEnd().length;
        edits.push({ start: codeEnd, end: c.end, text: '' });
        edits.push({ start: lineStart(line), end: lineStart(line), text: `${out.join('\n')}\n` });
        if (width(before.trimEnd()) > MAX) note(line, 'code');
      }
      continue;
    }
    // A block comment: its long lines, or a one-line /** … */ that stands alone.
    const first = line;
    const last = lineOf(c.end);
    if (first === last) {
      if (!long.has(line)) continue;
      const after = text.slice(c.end, lineStart(line) + lines[line]!.length);
      const m = /^\/\*(\*?)\s*([\s\S]*?)\s*\*\/$/.exec(raw)!;
      if (!alone || after.trim() !== '') {
        note(line, 'block comment beside code');
        continue;
      }
      const open = `/*${m[1]}`;
      const out = reflow(`${indent} * `, m[2]!);
      edits.push({ start: lineStart(line), end: c.end, text: [`${indent}${open}`, ...out, `${indent} */`].join('\n') });
      continue;
    }
    for (let l = first; l <= last; l++) {
      if (!long.has(l)) continue;
      const src = lines[l]!;
      const m = /^(\s*\*?\s?)(.*?)(\s*\*\/)?$/.exec(src)!;
      if (l === first || m[3]) {
        note(l, 'first or last line of a block comment');
        continue;
      }
      const out = reflow(m[1]!, m[2]!);
      if (out.length < 2) note(l, 'comment with a word longer than a line');
      else edits.push({ start: lineStart(l), end: lineStart(l) + src.length, text: out.join('\n') });
    }
  }

  // What is still long and nothing above touches: say why.
  const touched = new Set(edits.flatMap((e) => [lineOf(e.start), lineOf(e.end)]));
  for (const l of long) {
    if (touched.has(l) || left.has(l)) continue;
    if (regexLines.has(l)) note(l, 'regex');
    else if (templateLines.has(l)) note(l, 'template literal');
    else if (/https?:\/\//.test(lines[l]!)) note(l, 'URL');
    else note(l, 'code');
  }
  return { edits, left };
}

function apply(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start || b.end - a.end)) {
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  }
  return out;
}

const check = process.argv.includes('--check');
let changed = 0;
const report: string[] = [];
for (const file of sourceFiles('')) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const out = apply(text, wrapFile(file, text).edits);
  if (out !== text) {
    changed++;
    if (!check) writeFileSync(path.join(ROOT, file), out);
  }
  // What is left is read off the new text (its line numbers), by the same pass, which must find nothing to do.
  const again = wrapFile(file, out);
  if (again.edits.length > 0) report.push(`${file}: a second pass would change it again (a bug of this script)`);
  for (const [line, what] of [...again.left].sort((a, b) => a[0] - b[0])) report.push(`${file}:${line + 1}: ${what}`);
}
for (const r of report) console.log(r);
console.error(
  `${check ? 'would change' : 'changed'} ${changed} files; ${report.length} long lines left to fix by hand`,
);
if (check && changed > 0) process.exitCode = 1;
