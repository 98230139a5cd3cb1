import { ToolsMapRequest } from '../../shared/schemas/bridge.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('tools', { read: ['tools:use'], write: ['tools:use'] });

export const routes = [
  r.post('/v1/tools/imageReader', 'Read image attachments, return evidence signals'),
  r.post('/v1/tools/browserReader', 'Prepare or execute headless source reads'),
  r.post('/v1/tools/chainTrace', 'Trace blockchain transactions, prepare a recovery assessment'),
  r.post('/v1/tools/portalBrowser', 'Fail-closed authenticated portal action with proof-ready artefacts'),
  r.post('/v1/tools/map', 'Place candidates with name, address, rating, distance', { body: ToolsMapRequest, countsAsWorkflow: true, domain: 'hunt', mcpTool: 'tools.map' }),
];
