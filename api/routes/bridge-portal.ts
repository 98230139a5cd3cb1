import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('bridge', { read: ['bridge:read'], write: ['bridge:write'], domain: 'bridge' });

export const routes = [
  r.post('/v1/bridge/portal/sessions', 'Create a credential-reference-backed portal session'),
  r.get('/v1/bridge/portal/sessions', 'List portal sessions', { list: true }),
  r.get('/v1/bridge/portal/sessions/{portalSessionId}', 'Fetch a portal session'),
  r.post('/v1/bridge/portal/sessions/{portalSessionId}/preflight', 'Check credential, MFA and target-scope readiness'),
  r.post('/v1/bridge/portal/actions', 'Create a portal action'),
  r.get('/v1/bridge/portal/actions', 'List portal actions', { list: true }),
  r.get('/v1/bridge/portal/actions/{portalActionId}', 'Fetch a portal action'),
  r.post('/v1/bridge/portal/actions/{portalActionId}/run', 'Run through the portal browser tool'),
  r.get('/v1/bridge/portal/templates', 'List action templates'),
  r.get('/v1/bridge/portal/templates/{templateId}', 'Fetch an action template'),
  r.get('/v1/bridge/portal/playbooks', 'List recovery playbooks'),
  r.get('/v1/bridge/portal/playbooks/{playbookId}', 'Fetch a recovery playbook'),
  r.post('/v1/bridge/portal/playbooks/{playbookId}/instantiate', 'Instantiate a playbook into queued portal actions'),
];
