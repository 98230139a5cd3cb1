import { Type, type Static } from '@sinclair/typebox';
import { ACTION_STATUSES } from '../bridge/index.js';
import { AnyObject, Id, PageQuery, StringEnum, Text, Timestamp } from '../../shared/schemas/common.js';

/** The spec's vocabularies of a mission and its outcome. */
export const MISSION_KINDS = ['call', 'message', 'review', 'logistics'] as const;
export const MISSION_REASONS = [
  'localServiceAvailability',
  'identityVerificationAndConsent',
  'humanReviewerNeeded',
] as const;
export const PROXY_OUTCOME_STATUSES = ['confirmedSuccess', 'providerUnavailable', 'failed'] as const;
/** Mission statuses, in the order of the status table (jobs/proxy/machine.ts, which a unit test holds to this list). */
export const MISSION_STATUSES = ['open', 'inProgress', 'resolved', 'failed', 'expired', 'canceled'] as const;
/** Moves a client makes with POST /v1/proxy/missions/{proxyId}/update; the others come with an outcome or the clock. */
export const MISSION_CLIENT_MOVES = ['open', 'inProgress', 'canceled'] as const;
export const PROVIDER_STATUSES = ['unverified', 'verified'] as const;

export type MissionStatus = (typeof MISSION_STATUSES)[number];
export type ProxyOutcomeStatus = (typeof PROXY_OUTCOME_STATUSES)[number];

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

export const MissionKind = StringEnum(MISSION_KINDS);
export const MissionReason = StringEnum(MISSION_REASONS);
export const MissionStatus = StringEnum(MISSION_STATUSES, {
  description: 'open → inProgress → resolved | failed | expired | canceled',
});
export const OutcomeStatus = StringEnum(PROXY_OUTCOME_STATUSES);

export const SelectedProvider = Type.Object(
  {
    name: Type.Optional(Text(300)),
    phone: Type.Optional(Text(50)),
    providerId: Type.Optional(Text(200)),
  },
  {
    additionalProperties: true,
    description: 'The provider to contact; providerId is your own reference to it (or a prov_ id of the provider book)',
  },
);

export const VoiceCall = Type.Object(
  { phone: Type.Optional(Text(50)), prompt: Type.Optional(Text(4000)), connectorId: Type.Optional(Text(100)) },
  { additionalProperties: true },
);
export const ChannelMsg = Type.Object(
  {
    channel: Type.Optional(Text(50)),
    to: Type.Optional(Text(300)),
    text: Type.Optional(Text(4000)),
    connectorId: Type.Optional(Text(100)),
  },
  { additionalProperties: true },
);
export const MissionResume = Type.Object(
  { conversationId: Type.Optional(Text(200)), candidateId: Type.Optional(Text(200)), action: Type.Optional(Text(50)) },
  { additionalProperties: true },
);

export const ProxyMissionCreate = Type.Object(
  {
    taskId: Text(200),
    kind: MissionKind,
    reason: MissionReason,
    task: Text(4000),
    context: Type.Optional(
      Type.Object(
        {
          selectedProvider: Type.Optional(SelectedProvider),
          logisticsBrief: Type.Optional(Type.Unknown()),
          decisionFork: Type.Optional(Type.Unknown()),
        },
        { additionalProperties: true },
      ),
    ),
    voiceCall: Type.Optional(VoiceCall),
    channelMsg: Type.Optional(ChannelMsg),
    proofReq: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_.-]+$' }), {
        maxItems: 20,
        uniqueItems: true,
        description: "Keys the outcome's proof must carry for a confirmedSuccess",
      }),
    ),
    resume: Type.Optional(MissionResume),
  },
  { $id: 'ProxyMissionCreate', additionalProperties: true },
);
export type ProxyMissionCreate = Static<typeof ProxyMissionCreate>;

const outcomeFields = {
  status: OutcomeStatus,
  note: Type.Optional(Text(4000)),
  availability: Type.Optional(
    Type.Object(
      {
        status: Type.Optional(Text(100)),
        availableAt: Type.Optional(Text(100)),
        providerName: Type.Optional(Text(300)),
      },
      { additionalProperties: true },
    ),
  ),
  proof: Type.Optional(AnyObject),
};

export const ProxyOutcome = Type.Object(outcomeFields, { $id: 'ProxyOutcome', additionalProperties: true });
export type ProxyOutcome = Static<typeof ProxyOutcome>;

/** The outcome addressed by reference: every reference given must match, and exactly one open mission must. */
export const ProxyOutcomeByReference = Type.Object(
  {
    ...outcomeFields,
    proxyId: Type.Optional(Id('The mission (prx_...)')),
    runId: Type.Optional(Id('The run the mission was created by')),
    requestId: Type.Optional(Id('X-Request-Id of the POST /v1/proxy/missions that created the mission')),
    providerRef: Type.Optional(
      Id("The mission's provider: its prov_ id in the provider book, or your providerId of context.selectedProvider"),
    ),
    callbackRef: Type.Optional(Id("The mission's callbackRef (pcb_...), which a connector echoes in its callback")),
  },
  { $id: 'ProxyOutcomeByReference', additionalProperties: true },
);
export type ProxyOutcomeByReference = Static<typeof ProxyOutcomeByReference>;

export const MissionUpdate = Type.Object(
  {
    status: StringEnum(MISSION_CLIENT_MOVES, {
      description: 'inProgress: a person took the mission; open: handed back; canceled: nobody will do it',
    }),
    note: Type.Optional(Text(2000)),
    assignee: Type.Optional(Text(200)),
  },
  { $id: 'ProxyMissionUpdate' },
);

export const MissionListQuery = Type.Composite([
  PageQuery,
  Type.Object({ status: Type.Optional(MissionStatus), kind: Type.Optional(MissionKind), taskId: Type.Optional(Id()) }),
]);

const Move = Type.Object({
  from: Type.Union([MissionStatus, Type.Null()]),
  to: MissionStatus,
  at: Timestamp,
  actor: Type.String(),
  note: Type.Union([Type.String(), Type.Null()]),
});
const Dispatch = Type.Object({
  status: StringEnum(['notSent', ...ACTION_STATUSES], {
    description: 'notSent: no connectorId was given; else the status of the bridge action that sends it',
  }),
  reason: Type.Optional(Type.String()),
  actionId: Type.Optional(Type.String({ description: 'The bridge action (bac_...) that sends it' })),
  connectorId: Type.Optional(Type.String()),
});
const Availability = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);

export const VerifiedProvider = Type.Object(
  { providerId: Type.String(), name: Type.String(), availability: Availability },
  { $id: 'VerifiedProvider', description: 'The provider the outcome verified in the provider book' },
);

export const MissionView = Type.Object(
  {
    proxyId: Type.String(),
    taskId: Type.String(),
    runId: Nullable(Type.String()),
    kind: MissionKind,
    reason: MissionReason,
    task: Type.String(),
    context: AnyObject,
    voiceCall: Type.Union([AnyObject, Type.Null()]),
    channelMsg: Type.Union([AnyObject, Type.Null()]),
    dispatch: Type.Object(
      { voiceCall: Type.Optional(Dispatch), channelMsg: Type.Optional(Dispatch) },
      {
        description:
          'What was sent for the mission: with a connectorId, voiceCall and channelMsg go out as bridge actions',
      },
    ),
    proofReq: Type.Array(Type.String()),
    resume: Type.Union([AnyObject, Type.Null()]),
    status: MissionStatus,
    allowedTransitions: Type.Array(MissionStatus),
    assignee: Nullable(Type.String()),
    outcome: Type.Union([
      Type.Object({
        ...outcomeFields,
        // Stored as given: a field the outcome did not carry is null.
        note: Type.Optional(Nullable(Type.String())),
        availability: Type.Optional(Type.Union([AnyObject, Type.Null()])),
        proof: Type.Optional(Type.Unknown()),
        submittedAt: Timestamp,
        actor: Type.String(),
      }),
      Type.Null(),
    ]),
    proof: Type.Union([AnyObject, Type.Null()]),
    proofArtefacts: Type.Array(
      Type.Object({
        item: Type.String(),
        required: Type.Boolean(),
        sha256: Type.String({ description: "SHA-256 of the item's canonical JSON (RFC 8785)" }),
      }),
    ),
    provider: Type.Union([
      Type.Object({ providerId: Type.String(), name: Type.String(), status: StringEnum(PROVIDER_STATUSES) }),
      Type.Null(),
    ]),
    providerRef: Nullable(Type.String()),
    callbackRef: Type.String(),
    requestId: Nullable(Type.String()),
    expiresAt: Timestamp,
    resolvedAt: Nullable(Timestamp),
    history: Type.Array(Move),
    replies: Type.Array(AnyObject, {
      description:
        "Replies its dispatch brought back (SMS, a call's gathered answer, email, chat), oldest first: at, channel, " +
        'from, text, connectorId, callbackId, parsed (answer, availableAt, when, price, ambiguous), settled and, ' +
        'when it did not settle the mission, why (a person judges it)',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ProxyMission' },
);

export const ProviderView = Type.Object(
  {
    providerId: Type.String(),
    name: Type.String(),
    phone: Nullable(Type.String()),
    status: StringEnum(PROVIDER_STATUSES),
    availability: Availability,
    verifiedAt: Nullable(Timestamp),
    verifiedBy: Nullable(Type.String()),
    verifiedByMission: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ProxyProvider' },
);

export const VerificationView = Type.Object({
  proxyId: Type.String(),
  actor: Type.String(),
  outcomeStatus: OutcomeStatus,
  availability: Availability,
  at: Timestamp,
});

export const ProviderListQuery = Type.Composite([
  PageQuery,
  Type.Object({ status: Type.Optional(StringEnum(PROVIDER_STATUSES)) }),
]);
