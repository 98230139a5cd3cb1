import { routeGroup } from '../../shared/http/route-group.js';
import { MigrationValidate } from '../../shared/schemas/dev-delivery.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

/** Migration safety with the real Postgres parser; runs nothing */
export const migration = defineDomain({
  name: 'migration',
  summary: 'Migration safety with the real Postgres parser; runs nothing',
  pendingIssue: 15,
  scopes,
  vocabulary,
  routes: [
    r.post('/v1/database/migration/validate', 'Validate migrations with the real Postgres parser; runs nothing', { countsAsWorkflow: true, body: MigrationValidate, mcpTool: 'migration.validate' }),
  ],
});
