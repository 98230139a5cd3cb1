import { routeGroup } from '../../shared/http/route-group.js';
import { EnvironmentConfigure } from '../../shared/schemas/dev-delivery.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

/** Detects runtimes, services, secrets and setup steps of a project; executes no commands */
export const environment = defineDomain({
  name: 'environment',
  summary: 'Detects runtimes, services, secrets and setup steps of a project; executes no commands',
  pendingIssue: 16,
  scopes,
  vocabulary,
  routes: [
    r.post('/v1/environment/configure', 'Detect runtimes, services, secrets and setup steps; executes no commands', { countsAsWorkflow: true, body: EnvironmentConfigure, mcpTool: 'environment.configure' }),
  ],
});
