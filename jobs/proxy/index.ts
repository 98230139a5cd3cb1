import { Type } from '@sinclair/typebox';
import { routeGroup } from '../../shared/http/route-group.js';
import { ProxyMissionCreate, ProxyOutcome } from '../../shared/schemas/proxy-pay.js';
import { defineDomain } from '../domain.js';
import { metadataOf, textOr } from '../workflows/template.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['proxy:read'], write: ['proxy:write'] };
const r = routeGroup('proxy', scopes);

/** Human-in-the-loop missions: a run hands work to a person and continues with their outcome. */
export const proxy = defineDomain({
  name: 'proxy',
  summary: 'Human-in-the-loop missions',
  pendingIssue: 12,
  scopes,
  vocabulary,
  resumeActions: { proxyOutcome: { description: 'The mission\'s outcome; the run continues from the step that waited' } },
  routes: [
    r.get('/v1/proxy/missions', 'List proxy missions', { list: true }),
    r.post('/v1/proxy/missions', 'Create a human-in-the-loop mission', { body: ProxyMissionCreate, mcpTool: 'proxy.createMission' }),
    r.get('/v1/proxy/missions/{proxyId}', 'Mission with status, context, outcome, proof artefacts'),
    r.post('/v1/proxy/missions/{proxyId}/outcome', 'Submit a mission outcome', { body: ProxyOutcome }),
    r.post('/v1/proxy/outcomes', 'Submit an outcome by proxy, request, provider or connector callback reference'),
  ],
  templates: [
    {
      templateId: 'coordinateHumanProcess',
      domains: ['proxy'],
      description: 'Hand a step to a human through a proxy mission and resume with the outcome',
      input: Type.Object({ request: Type.String({ minLength: 1, maxLength: 4000 }) }, { $id: 'CoordinateHumanProcessInput', additionalProperties: true }),
      toRequest: (i) => ({ request: textOr(i.request, 'coordinate a human step'), domainRoute: ['proxy'], metadata: metadataOf(i) }),
    },
  ],
});
