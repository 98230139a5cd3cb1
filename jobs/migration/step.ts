import { invalidPayload } from '../../shared/errors.js';
import { MigrationValidate } from './schemas.js';
import { assertValid } from '../../shared/validation.js';
import type { StepHandler, StepInput } from '../step.js';
import { sqlFromRequest } from './request-sql.js';
import { validateMigrations } from './validate.js';

/**
 * The migrations a run asks about: `migrations` in the body or its metadata, else the SQL written in the request
 * itself.
 */
async function bodyOf(input: StepInput): Promise<MigrationValidate> {
  const field = (name: string) => input.metadata[name] ?? input.extras[name];
  const given = field('migrations');
  const sql =
    given === undefined ? ((await sqlFromRequest(input.clause)) ?? (await sqlFromRequest(input.request))) : null;
  if (given === undefined && !sql) {
    throw invalidPayload(
      'no migration to validate: send metadata.migrations ([{ id, sql }]) or put the SQL in the request (in ' +
        'a ```sql block)',
    );
  }
  const body = {
    migrations: given ?? [{ id: 'request', sql }],
    backup: field('backup'),
    dialect: field('dialect') ?? 'postgres',
    assumeInTransaction: field('assumeInTransaction'),
  };
  return assertValid<MigrationValidate>(MigrationValidate, JSON.parse(JSON.stringify(body)));
}

/**
 * "Is this migration safe?": the same validation as POST
 * /v1/database/migration/validate, as a run step. Each error and warning
 * becomes evidence bound to its statement; a block verdict is an open
 * question for a person before anyone applies it.
 */
export const migrationStep: StepHandler = async (input) => {
  const result = await validateMigrations(await bodyOf(input), input.signal);
  const { ok: _ok, ...output } = result;
  const serious = result.migrations.flatMap((m) =>
    m.findings.filter((f) => f.severity !== 'note').map((f) => ({ migration: m.id, f })),
  );
  await input.emit(
    `Parsed ${result.summary.statements} statement(s) in ${result.summary.migrations} migration(s): ${result.verdict}`,
    { verdict: result.verdict, ...result.summary },
  );
  const evidence = serious.slice(0, 50).map(({ migration, f }) => ({
    claim:
      `${f.ruleId} (${f.severity}${f.lock ? `, ${f.lock}` : ''}${f.rewrite ? ', rewrites the table' : ''}): ` +
      `${f.message}`,
    source: `migration ${migration}, line ${f.statement.position.line}`,
    sourceBound: true,
  }));
  const openQuestions = [
    ...(result.verdict === 'block'
      ? [
          `Verdict block: ${result.summary.errors} finding(s) must be fixed (or, for destruction, backed by ` +
            `a verified backup) before this is applied.`,
        ]
      : []),
    ...result.orderingIssues.filter((o) => o.severity !== 'note').map((o) => o.message),
  ];
  const conversation = [
    `Verdict ${result.verdict}: ${result.summary.errors} error(s), ${result.summary.warnings} warning(s), ` +
      `${result.summary.notes} note(s) over ${result.summary.statements} statement(s); nothing was executed.`,
    ...serious
      .filter(({ f }) => f.severity === 'error')
      .slice(0, 5)
      .map(({ migration, f }) => `${migration} line ${f.statement.position.line}: ${f.message}`),
  ];
  return { output, evidence, conversation, openQuestions };
};
