import { routeGroup, toolsGroup } from '../../shared/http/route-group.js';
import { ScamTriageRequest, ScamTriageResult } from '../../shared/schemas/resolve.js';
import { triageForClient } from './triage-service.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('resolve', scopes);
const tools = toolsGroup;
const cases = routeGroup('cases', { read: ['cases:read'], write: ['cases:write'] });

export const routes = [
  r.post('/v1/resolve/scamTriage', 'Risk, evidence map, contradictions and missing evidence for a claim', {
    description: 'Deterministic rules (FTC signs, IC3 categories; README "Scam triage" lists each rule id), lookalike domains, and contradictions between the claim and the documents, each citing its exact spans. A configured LLM may add signals, never remove them.',
    body: ScamTriageRequest, response: { 200: ScamTriageResult }, countsAsWorkflow: true, mcpTool: 'resolve.scamTriage',
    handler: ({ body, principal, signal }, deps) => triageForClient(deps, principal.accountId, body, signal),
  }),
  tools.post('/v1/tools/chainTrace', 'Trace blockchain transactions, prepare a recovery assessment', { pendingIssue: 17 }),
  ...[
    cases.get('/v1/cases', 'List cases', { list: true }),
    cases.post('/v1/cases', 'Create or upsert a case'),
    cases.get('/v1/cases/{caseId}', 'Fetch a case'),
    cases.post('/v1/cases/{caseId}/update', 'Update status, metadata, collaboration state'),
    cases.post('/v1/cases/{caseId}/stakeholders', 'Add a stakeholder'),
    cases.post('/v1/cases/{caseId}/deadlines', 'Add a deadline'),
    cases.post('/v1/cases/{caseId}/deadlines/review', 'Mark overdue open deadlines as missed'),
    cases.post('/v1/cases/{caseId}/actions', 'Add an action item'),
    cases.get('/v1/cases/{caseId}/actions', 'List action items', { list: true }),
    cases.post('/v1/cases/{caseId}/actions/{actionId}/update', 'Update status, owner, due date, refs'),
    cases.post('/v1/cases/{caseId}/events', 'Append a timeline event'),
    cases.get('/v1/cases/{caseId}/timeline', 'Fetch the case timeline'),
  ].map((route) => ({ ...route, pendingIssue: 18 })),
];
