import { environmentAnalyzer } from './analyzer.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { EnvironmentReport } from '../../shared/schemas/delivery-ops.js';
import { EnvironmentConfigure } from '../../shared/schemas/dev-delivery.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

export const routes = [
  r.post('/v1/environment/configure', 'Detect runtimes, services, secrets and setup steps; executes no commands', {
    description:
      'Reads the `files` given (path → contents): runtimes and versions, package managers from lockfiles, ' +
      'backing services (compose images, client libraries, env names), secrets from env example files, ' +
      'ordered setup steps and `readiness` with its reasons. A manifest that does not parse, or runtime pins ' +
      'that disagree, make it `blocked`.',
    countsAsWorkflow: true,
    body: EnvironmentConfigure,
    response: { 200: EnvironmentReport },
    mcpTool: 'environment.configure',
    handler: async ({ body }) => ({ ok: true, ...(await environmentAnalyzer())(body.files), executed: false }),
  }),
];
