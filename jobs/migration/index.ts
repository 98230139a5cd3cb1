import { routeGroup } from '../../shared/http/route-group.js';
import { MigrationValidate } from '../../shared/schemas/dev-delivery.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

const r = routeGroup('workflows', { read: ['tools:use'], write: ['tools:use'] });

/** Migration safety with the real Postgres parser; runs nothing */
export const migration = defineDomain({
  name: 'migration',
  summary: 'Migration safety with the real Postgres parser; runs nothing',
  pendingIssue: 15,
  scopes: { read: ['tools:use'], write: ['tools:use'] },
  vocabulary,
  routes: [
    r.post('/v1/database/migration/validate', 'Validate migrations with the real Postgres parser; runs nothing', { countsAsWorkflow: true, body: MigrationValidate, mcpTool: 'migration.validate' }),
  ],
});
