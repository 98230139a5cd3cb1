import { Type } from '@sinclair/typebox';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import { Ok, Page } from '../../shared/schemas/common.js';
import {
  MissionListQuery,
  MissionUpdate,
  MissionView,
  ProviderListQuery,
  ProviderView,
  ProxyMissionCreate,
  ProxyOutcome,
  ProxyOutcomeByReference,
  VerificationView,
  VerifiedProvider,
} from './schemas.js';
import type { Ended } from './outcome.js';
import {
  createMission,
  fetchMission,
  fetchProvider,
  findMissions,
  findProviders,
  submitOutcome,
  submitOutcomeByReference,
  updateMission,
} from './service.js';
import { missionView, providerView, verificationView } from './view.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['proxy:read'], write: ['proxy:write'] };
const r = routeGroup('proxy', scopes);

const MissionOne = Ok(
  { proxyId: Type.String(), status: MissionView.properties.status, mission: MissionView },
  'ProxyMissionOne',
);
const OutcomeAnswer = Ok(
  {
    proxyId: Type.String(),
    status: MissionView.properties.status,
    verifiedProvider: Type.Union([VerifiedProvider, Type.Null()]),
    run: Type.Union([
      Type.Object({ runId: Type.String(), resumed: Type.Boolean(), status: Type.String() }),
      Type.Null(),
    ]),
    mission: MissionView,
  },
  'ProxyOutcomeAnswer',
);

/** The answer of every route that moves a mission: the mission, whom its outcome verified, and the run it resumed. */
function ended(e: Ended) {
  return {
    ok: true,
    proxyId: e.mission.id,
    status: e.mission.status,
    verifiedProvider: e.verifiedProvider,
    run: e.run,
    mission: missionView(e.mission, e.provider),
  };
}

export const routes = [
  r.get('/v1/proxy/missions', 'List proxy missions (filters: status, kind, taskId; cursor pagination)', {
    query: MissionListQuery,
    mcpTool: 'proxy.listMissions',
    response: { 200: Page('missions', MissionView, 'ProxyMissionPage') },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findMissions(deps, principal, query);
      return { ok: true, missions: rows.map((m) => missionView(m)), nextCursor };
    },
  }),
  r.post('/v1/proxy/missions', 'Create a human-in-the-loop mission', {
    description:
      'The task must be yours (404 otherwise) and not finished (409); it moves to awaitingProxy. A provider ' +
      "named in context.selectedProvider (or the call's phone) goes into the provider book, unverified. A " +
      'voiceCall or channelMsg with a connectorId is sent as a bridge action (checked first: 404, 409 or 422 ' +
      "as POST /v1/bridge/actions answers), its input carrying the mission's proxyId and callbackRef; " +
      '`dispatch` shows each action and its status.',
    body: ProxyMissionCreate,
    response: { 201: MissionOne },
    mcpTool: 'proxy.createMission',
    handler: async ({ body, principal, requestId }, deps) => {
      const { mission, provider, actions } = await createMission(deps, principal, body, requestId);
      return new Reply(201, {
        ok: true,
        proxyId: mission.id,
        status: mission.status,
        mission: missionView(mission, provider, actions),
      });
    },
  }),
  r.get('/v1/proxy/missions/{proxyId}', 'Mission with status, context, outcome, proof artefacts and history', {
    response: { 200: MissionOne },
    mcpTool: 'proxy.getMission',
    handler: async ({ params, principal }, deps) => {
      const { mission, provider, actions } = await fetchMission(deps, principal, params.proxyId);
      return {
        ok: true,
        proxyId: mission.id,
        status: mission.status,
        mission: missionView(mission, provider, actions),
      };
    },
  }),
  r.post('/v1/proxy/missions/{proxyId}/update', 'Take a mission (inProgress), hand it back (open) or cancel it', {
    description:
      'Moves follow the mission status table (409 with the allowed moves otherwise). Canceling a mission a ' +
      'run waits on resumes the run, which then fails saying the mission was canceled.',
    body: MissionUpdate,
    response: { 200: OutcomeAnswer },
    handler: async ({ params, body, principal }, deps) =>
      ended(await updateMission(deps, principal, params.proxyId, body)),
  }),
  r.post('/v1/proxy/missions/{proxyId}/outcome', 'Submit a mission outcome', {
    description:
      'Accepted once (a second outcome, or one racing it, is 409). A confirmedSuccess must carry every ' +
      'proofReq item in `proof` (400 naming each). For localServiceAvailability and ' +
      'identityVerificationAndConsent it verifies the provider in the provider book (`verifiedProvider`). A ' +
      'run waiting on the mission resumes in the same transaction.',
    body: ProxyOutcome,
    response: { 200: OutcomeAnswer },
    mcpTool: 'proxy.submitOutcome',
    handler: async ({ params, body, principal }, deps) =>
      ended(await submitOutcome(deps, principal, params.proxyId, body)),
  }),
  r.post('/v1/proxy/outcomes', 'Submit an outcome by proxy, run, request, provider or connector callback reference', {
    description:
      'Every reference given must match, and exactly one open or inProgress mission must: none is 404, ' +
      'several 409 (listing them). Then as POST /v1/proxy/missions/{proxyId}/outcome.',
    body: ProxyOutcomeByReference,
    response: { 200: OutcomeAnswer },
    mcpTool: 'proxy.submitOutcomeByReference',
    handler: async ({ body, principal }, deps) => ended(await submitOutcomeByReference(deps, principal, body)),
  }),
  r.get('/v1/proxy/providers', 'The provider book (filter: status; cursor pagination)', {
    query: ProviderListQuery,
    response: { 200: Page('providers', ProviderView, 'ProxyProviderPage') },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findProviders(deps, principal, query);
      return { ok: true, providers: rows.map(providerView), nextCursor };
    },
  }),
  r.get('/v1/proxy/providers/{providerId}', 'A provider of the book with its verification history', {
    response: { 200: Ok({ provider: ProviderView, verifications: Type.Array(VerificationView) }, 'ProxyProviderOne') },
    handler: async ({ params, principal }, deps) => {
      const { provider, verifications } = await fetchProvider(deps, principal, params.providerId);
      return { ok: true, provider: providerView(provider), verifications: verifications.map(verificationView) };
    },
  }),
];
