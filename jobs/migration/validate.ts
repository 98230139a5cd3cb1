import { setImmediate } from 'node:timers/promises';
import { verdictOf } from '../../shared/schemas/analysis.js';
import { policyViolation } from '../../shared/errors.js';
import type { MigrationFinding, MigrationValidate, MigrationValidateResult, PostCheck } from './schemas.js';
import type { BatchState } from './analyze.js';
import { backupState, migrationVerdict, sortFindings, summarize, syntaxFinding, toFinding } from './logic.js';
import { orderingIssues } from './ordering.js';
import { PARSER_POSTGRES_VERSION, parseMigration } from './parse.js';
import { walkMigration } from './walk.js';

/**
 * POST /v1/database/migration/validate and the migration step: parse each
 * migration with the Postgres parser, walk its statements through the rules
 * in the order they would be applied, and add up the verdict. It reads SQL
 * as text; no statement is ever sent to a database.
 */

const DIALECTS = new Set(['postgres', 'postgresql', 'pg']);
// A MiB of `DROP TABLE t;` is 70,000 findings: the answer lists enough to act on and counts the rest.
const FINDINGS_PER_MIGRATION = 200;
const FINDINGS_LISTED = 1000;
const POST_CHECKS = 500;

export async function validateMigrations(
  body: MigrationValidate,
  signal?: AbortSignal,
): Promise<MigrationValidateResult> {
  const dialect = (body.dialect ?? 'postgres').trim().toLowerCase();
  if (!DIALECTS.has(dialect)) {
    throw policyViolation(
      `dialect ${JSON.stringify(body.dialect.slice(0, 50))} is not supported: migrations are validated with ` +
        `the Postgres parser only (dialect: postgres)`,
      { field: 'dialect', supported: ['postgres'] },
    );
  }
  const backup = backupState(body.backup);
  const batch: BatchState = { created: new Set() };
  const postChecks: PostCheck[] = [];
  const seen = new Set<string>();
  const migrations: MigrationValidateResult['migrations'] = [];
  const all: MigrationFinding[] = [];
  let statements = 0;
  for (const migration of body.migrations) {
    await setImmediate(); // parsing is synchronous work: let the process serve other requests between migrations
    signal?.throwIfAborted();
    const parsed = await parseMigration(migration.sql);
    const walked = walkMigration(parsed, batch, body.assumeInTransaction === true);
    const findings = sortFindings([
      ...parsed.syntaxErrors.map(syntaxFinding),
      ...walked.findings.map((f) => toFinding(f, backup)),
    ]);
    statements += parsed.statements.length + parsed.syntaxErrors.length;
    const listed = Math.max(
      0,
      Math.min(FINDINGS_PER_MIGRATION, FINDINGS_LISTED - migrations.reduce((n, m) => n + m.findings.length, 0)),
    );
    for (const f of findings) all.push(f); // a MiB of SQL can hold 100,000 findings: too many arguments for push(...)
    migrations.push({
      id: migration.id,
      verdict: migrationVerdict(findings),
      statements: parsed.statements.length + parsed.syntaxErrors.length,
      transaction: walked.transaction,
      findings: findings.slice(0, listed),
      omitted: findings.length - Math.min(listed, findings.length),
    });
    for (const check of walked.checks) {
      const key = `${migration.id}|${check.kind}|${check.target}`;
      if (!seen.has(key)) postChecks.push({ migrationId: migration.id, ...check });
      seen.add(key);
    }
  }
  const ordering = orderingIssues(body.migrations.map((m) => m.id));
  return {
    ok: true,
    verdict: verdictOf([...all.map((f) => f.severity), ...ordering.map((o) => o.severity)]),
    dialect: 'postgres',
    parser: { name: 'libpg-query (libpg_query, the Postgres parser)', postgresVersion: PARSER_POSTGRES_VERSION },
    executed: false,
    backup,
    migrations,
    orderingIssues: ordering,
    postChecks: postChecks.slice(0, POST_CHECKS),
    summary: {
      migrations: migrations.length,
      statements,
      ...summarize(all),
      postChecksOmitted: Math.max(0, postChecks.length - POST_CHECKS),
    },
  };
}
