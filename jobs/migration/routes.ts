import { routeGroup } from '../../shared/http/route-group.js';
import { MigrationValidate, MigrationValidateResult } from './schemas.js';
import { validateMigrations } from './validate.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('migration', scopes);

export const routes = [
  r.post('/v1/database/migration/validate', 'Validate migrations with the real Postgres parser; runs nothing', {
    description:
      'Parses each migration with the Postgres parser (libpg_query) and judges every statement: the lock it ' +
      'takes, whether it rewrites the table, whether it destroys data, what fails on a live database, with ' +
      'the safe sequence to use instead. `verdict` is `block` for destruction without a verified backup and ' +
      'for statements that hold ACCESS EXCLUSIVE (or block writes) through a scan, build or rewrite; `warn` ' +
      'for risky but bounded changes and hygiene; `pass` otherwise. Also `orderingIssues` (duplicate, ' +
      'out-of-order, missing or mixed ids) and `postChecks` (read-only queries to run after applying). No ' +
      'statement is executed. A dialect other than postgres is 422.',
    body: MigrationValidate,
    response: { 200: MigrationValidateResult },
    countsAsWorkflow: true,
    mcpTool: 'migration.validate',
    handler: ({ body, signal }) => validateMigrations(body, signal),
  }),
];
