import { toolsGroup } from '../../../shared/http/route-group.js';
import { Reply } from '../../../shared/http/route-spec.js';
import { PageQuery } from '../../../shared/schemas/common.js';
import {
  PlaybookInstantiate,
  PlaybookInstantiateReply,
  PortalActionCreate,
  PortalActionListQuery,
  PortalActionPage,
  PortalActionReply,
  PortalBrowserRequest,
  PortalPlaybookList,
  PortalPlaybookReply,
  PortalPreflightReply,
  PortalSessionCreate,
  PortalSessionPage,
  PortalSessionReply,
  PortalTemplateList,
  PortalTemplateReply,
} from './schemas.js';
import { notFound } from '../../../shared/errors.js';
import { r } from '../routes.js';
import { requestPortalRun } from './run.js';
import { PLAYBOOKS, playbookById, TEMPLATES, templateById } from './catalog.js';
import {
  createPortalAction,
  createPortalSession,
  fetchPortalAction,
  fetchPortalSession,
  findPortalActions,
  findPortalSessions,
  instantiatePlaybook,
  preflightPortalSession,
} from './service.js';
import { portalActionView, portalSessionView } from './views.js';

const RUN =
  'Queues the action and answers 202 with it (queued, or running): follow it with GET ' +
  '/v1/bridge/portal/actions/{portalActionId} until it rests (succeeded, failed or blocked). Idempotent: an ' +
  'action already queued or running is answered as it is. A worker runs the steps in headless chromium only ' +
  "when the session's preflight (run again then) is ready, every request passes the egress rules and every " +
  "navigation stays in the session's scope; otherwise nothing is done and the action ends `blocked` saying why. " +
  'Per step: URL, screenshot SHA-256, extracted values, timing; credential values never appear. 422 when this ' +
  'server has no browser (nothing is queued); 409 once the action has succeeded.';

/**
 * The portal half of bridge: sessions with credential references, templates, playbooks and actions run by the portal
 * browser.
 */
export const portalRoutes = [
  r.post('/v1/bridge/portal/sessions', 'Create a credential-reference-backed portal session', {
    description:
      "For a connector (its endpoint's origin is the target unless targetOrigin is given) or a targetOrigin. " +
      'Credentials are env: references only; an unset variable is accepted here and fails preflight.',
    body: PortalSessionCreate,
    response: { 201: PortalSessionReply },
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, session: portalSessionView(await createPortalSession(deps, principal, body)) }),
  }),
  r.get('/v1/bridge/portal/sessions', 'List portal sessions', {
    query: PageQuery,
    response: { 200: PortalSessionPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findPortalSessions(deps, principal, query);
      return { ok: true, sessions: rows.map(portalSessionView), nextCursor };
    },
  }),
  r.get('/v1/bridge/portal/sessions/{portalSessionId}', 'Fetch a portal session', {
    response: { 200: PortalSessionReply },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      session: portalSessionView(await fetchPortalSession(deps, principal, params.portalSessionId)),
    }),
  }),
  r.post('/v1/bridge/portal/sessions/{portalSessionId}/preflight', 'Check credential, MFA and target-scope readiness', {
    description:
      'ready, or the first failed check as credentialsMissing, mfaUnavailable or outOfScope, with one error ' +
      'per failed check (a missing variable is named, a value never shown).',
    response: { 200: PortalPreflightReply },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      portalSessionId: params.portalSessionId,
      ...(await preflightPortalSession(deps, await fetchPortalSession(deps, principal, params.portalSessionId))),
    }),
  }),
  r.post('/v1/bridge/portal/actions', 'Create a portal action', {
    description:
      'From a templateId (its required inputs given) or a step list; every navigation must stay in the ' +
      "session's scope, every fill name a given input or a credential the session holds (400 naming each " +
      'problem). Created queued.',
    body: PortalActionCreate,
    response: { 201: PortalActionReply },
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, action: portalActionView(await createPortalAction(deps, principal, body)) }),
  }),
  r.get('/v1/bridge/portal/actions', 'List portal actions', {
    query: PortalActionListQuery,
    response: { 200: PortalActionPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findPortalActions(deps, principal, query);
      return { ok: true, actions: rows.map(portalActionView), nextCursor };
    },
  }),
  r.get('/v1/bridge/portal/actions/{portalActionId}', 'Fetch a portal action', {
    description: 'How a run asked for with …/run or the portalBrowser tool is followed: its status, then its results.',
    response: { 200: PortalActionReply },
    mcpTool: 'bridge.getPortalAction',
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      action: portalActionView(await fetchPortalAction(deps, principal, params.portalActionId)),
    }),
  }),
  r.post('/v1/bridge/portal/actions/{portalActionId}/run', 'Run through the portal browser tool', {
    description: RUN,
    response: { 202: PortalActionReply },
    handler: async ({ params, principal }, deps) =>
      new Reply(202, {
        ok: true,
        action: portalActionView(await requestPortalRun(deps, principal, params.portalActionId)),
      }),
  }),
  r.get('/v1/bridge/portal/templates', 'List action templates', {
    response: { 200: PortalTemplateList },
    handler: () => ({ ok: true, templates: [...TEMPLATES] }),
  }),
  r.get('/v1/bridge/portal/templates/{templateId}', 'Fetch an action template', {
    response: { 200: PortalTemplateReply },
    handler: ({ params }) => {
      const template = templateById(params.templateId);
      if (!template) throw notFound(`Portal template ${params.templateId}`);
      return { ok: true, template };
    },
  }),
  r.get('/v1/bridge/portal/playbooks', 'List recovery playbooks', {
    response: { 200: PortalPlaybookList },
    handler: () => ({ ok: true, playbooks: [...PLAYBOOKS] }),
  }),
  r.get('/v1/bridge/portal/playbooks/{playbookId}', 'Fetch a recovery playbook', {
    response: { 200: PortalPlaybookReply },
    handler: ({ params }) => {
      const playbook = playbookById(params.playbookId);
      if (!playbook) throw notFound(`Portal playbook ${params.playbookId}`);
      return { ok: true, playbook };
    },
  }),
  r.post('/v1/bridge/portal/playbooks/{playbookId}/instantiate', 'Instantiate a playbook into queued portal actions', {
    description:
      'Writes one queued portal action per step of the playbook against the session, all or none (400 naming ' +
      'a missing input). Each runs through …/actions/{portalActionId}/run.',
    body: PlaybookInstantiate,
    response: { 201: PlaybookInstantiateReply },
    handler: async ({ params, body, principal }, deps) =>
      new Reply(201, {
        ok: true,
        playbookId: params.playbookId,
        actions: (await instantiatePlaybook(deps, principal, params.playbookId, body)).map(portalActionView),
      }),
  }),
  toolsGroup.post('/v1/tools/portalBrowser', 'Fail-closed authenticated portal action with proof-ready artefacts', {
    // It runs what POST /v1/bridge/portal/actions/{id}/run runs, so it needs that route's scope as well as tools:use.
    scopes: ['tools:use', 'bridge:write'],
    description: RUN,
    body: PortalBrowserRequest,
    response: { 202: PortalActionReply },
    mcpTool: 'bridge.portalBrowser',
    handler: async ({ body, principal }, deps) =>
      new Reply(202, {
        ok: true,
        action: portalActionView(await requestPortalRun(deps, principal, body.portalActionId)),
      }),
  }),
];
