import { verdictOf, type Severity, type Verdict } from '../../shared/schemas/analysis.js';
import type { MigrationFinding, MigrationValidate } from './schemas.js';
import type { Emitted } from './analyze.js';
import { RULES } from './catalog.js';
import type { SyntaxProblem } from './parse.js';

/**
 * The verdict semantics, pure: each finding weighs what its rule weighs
 * (catalog.ts), except that a verified backup lowers a destructive change
 * from error to warning, and says so in the finding. A migration's verdict
 * is its worst finding; the batch's is the worst of its migrations and of
 * the ordering issues.
 */

const STATEMENT_CHARS = 1000;

export interface BackupState {
  provided: boolean;
  verified: boolean;
  takenAt: string | null;
  location: string | null;
  note: string;
}

export function backupState(backup: MigrationValidate['backup'], now = new Date()): BackupState {
  if (!backup)
    return {
      provided: false,
      verified: false,
      takenAt: null,
      location: null,
      note: 'no backup was named: destructive changes block',
    };
  const takenAt = backup.takenAt ?? null;
  const location = backup.location ?? null;
  if (backup.verified !== true)
    return {
      provided: true,
      verified: false,
      takenAt,
      location,
      note: 'the backup is not verified (verified: true once a restore was tested): destructive changes still block',
    };
  const hours = takenAt ? (now.getTime() - Date.parse(takenAt)) / 3_600_000 : null;
  const age =
    hours === null
      ? 'of unknown age'
      : hours < 0
        ? 'dated in the future (check the clock that wrote takenAt)'
        : `taken ${hours < 1 ? 'less than an hour' : `${Math.floor(hours)} hour(s)`} ago`;
  return {
    provided: true,
    verified: true,
    takenAt,
    location,
    note:
      `a verified backup ${age}${location ? ` at ${location}` : ''} lowers destructive changes from block to ` +
      `warn; writes after it are lost on restore`,
  };
}

function clip(text: string): string {
  return text.length > STATEMENT_CHARS ? `${text.slice(0, STATEMENT_CHARS - 1)}…` : text;
}

export function toFinding(e: Emitted, backup: BackupState): MigrationFinding {
  const rule = RULES[e.ruleId];
  const lowered = rule.category === 'destructive' && rule.severity === 'error' && backup.verified;
  return {
    ruleId: e.ruleId,
    severity: lowered ? 'warning' : rule.severity,
    category: rule.category,
    statement: {
      index: e.statement.index,
      text: clip(e.statement.text),
      position: { offset: e.statement.offset, line: e.statement.line, column: e.statement.column },
    },
    lock: e.lock,
    rewrite: e.rewrite,
    message: lowered
      ? `${e.message}. The verified backup${backup.location ? ` at ${backup.location}` : ''} lowers this from ` +
        `block to warn: restoring it is the way back`
      : e.message,
    safeRewrite: e.safeRewrite,
    backupLowered: lowered,
  };
}

export function syntaxFinding(p: SyntaxProblem): MigrationFinding {
  return {
    ruleId: 'syntax-error',
    severity: 'error',
    category: 'syntax',
    statement: { index: p.index, text: clip(p.text), position: { offset: p.offset, line: p.line, column: p.column } },
    lock: null,
    rewrite: false,
    message: `Postgres cannot parse this statement: ${p.message} (line ${p.line}, column ${p.column})`,
    safeRewrite: null,
    backupLowered: false,
  };
}

const ORDER: Record<Severity, number> = { error: 0, warning: 1, note: 2 };

/** Findings in statement order, the worst first within a statement. */
export function sortFindings(findings: MigrationFinding[]): MigrationFinding[] {
  return [...findings].sort(
    (a, b) => a.statement.position.offset - b.statement.position.offset || ORDER[a.severity] - ORDER[b.severity],
  );
}

export function migrationVerdict(findings: MigrationFinding[]): Verdict {
  return verdictOf(findings.map((f) => f.severity));
}

export function summarize(findings: MigrationFinding[]) {
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  return { errors: count('error'), warnings: count('warning'), notes: count('note') };
}
