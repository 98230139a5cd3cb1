import { verdictOf } from '../../shared/schemas/analysis.js';
import { policyViolation } from '../../shared/errors.js';
import type { MigrationValidate, MigrationValidateResult, PostCheck } from '../../shared/schemas/migration.js';
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

export async function validateMigrations(body: MigrationValidate, signal?: AbortSignal): Promise<MigrationValidateResult> {
  const dialect = (body.dialect ?? 'postgres').trim().toLowerCase();
  if (!DIALECTS.has(dialect)) {
    throw policyViolation(`dialect ${JSON.stringify(body.dialect.slice(0, 50))} is not supported: migrations are validated with the Postgres parser only (dialect: postgres)`, { field: 'dialect', supported: ['postgres'] });
  }
  const backup = backupState(body.backup);
  const batch: BatchState = { created: new Set() };
  const postChecks: PostCheck[] = [];
  const migrations: MigrationValidateResult['migrations'] = [];
  let statements = 0;
  for (const migration of body.migrations) {
    signal?.throwIfAborted();
    const parsed = await parseMigration(migration.sql);
    const walked = walkMigration(parsed, batch, body.assumeInTransaction === true);
    const findings = sortFindings([...parsed.syntaxErrors.map(syntaxFinding), ...walked.findings.map((f) => toFinding(f, backup))]);
    statements += parsed.statements.length + parsed.syntaxErrors.length;
    migrations.push({ id: migration.id, verdict: migrationVerdict(findings), statements: parsed.statements.length + parsed.syntaxErrors.length, transaction: walked.transaction, findings });
    const seen = new Set(postChecks.map((c) => `${c.migrationId}|${c.kind}|${c.target}`));
    for (const check of walked.checks) {
      const key = `${migration.id}|${check.kind}|${check.target}`;
      if (!seen.has(key)) postChecks.push({ migrationId: migration.id, ...check });
      seen.add(key);
    }
  }
  const ordering = orderingIssues(body.migrations.map((m) => m.id));
  const all = migrations.flatMap((m) => m.findings);
  return {
    ok: true,
    verdict: verdictOf([...all.map((f) => f.severity), ...ordering.map((o) => o.severity)]),
    dialect: 'postgres',
    parser: { name: 'libpg-query (libpg_query, the Postgres parser)', postgresVersion: PARSER_POSTGRES_VERSION },
    executed: false,
    backup,
    migrations,
    orderingIssues: ordering,
    postChecks,
    summary: { migrations: migrations.length, statements, ...summarize(all) },
  };
}
