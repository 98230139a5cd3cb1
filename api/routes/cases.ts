import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('cases', { read: ['cases:read'], write: ['cases:write'], domain: 'resolve' });

export const routes = [
  r.get('/v1/cases', 'List cases', { list: true }),
  r.post('/v1/cases', 'Create or upsert a case'),
  r.get('/v1/cases/{caseId}', 'Fetch a case'),
  r.post('/v1/cases/{caseId}/update', 'Update status, metadata, collaboration state'),
  r.post('/v1/cases/{caseId}/stakeholders', 'Add a stakeholder'),
  r.post('/v1/cases/{caseId}/deadlines', 'Add a deadline'),
  r.post('/v1/cases/{caseId}/deadlines/review', 'Mark overdue open deadlines as missed'),
  r.post('/v1/cases/{caseId}/actions', 'Add an action item'),
  r.get('/v1/cases/{caseId}/actions', 'List action items', { list: true }),
  r.post('/v1/cases/{caseId}/actions/{actionId}/update', 'Update status, owner, due date, refs'),
  r.post('/v1/cases/{caseId}/events', 'Append a timeline event'),
  r.get('/v1/cases/{caseId}/timeline', 'Fetch the case timeline'),
];
