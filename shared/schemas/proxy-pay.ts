import { Type } from '@sinclair/typebox';
import { AnyObject, StringEnum } from './common.js';

export const MISSION_KINDS = ['call', 'message', 'review', 'logistics'] as const;
export const MISSION_REASONS = ['localServiceAvailability', 'identityVerificationAndConsent', 'humanReviewerNeeded'] as const;
export const PROXY_OUTCOME_STATUSES = ['confirmedSuccess', 'providerUnavailable', 'failed'] as const;

const Str = (max = 2000) => Type.String({ minLength: 1, maxLength: max });

export const ProxyMissionCreate = Type.Object(
  {
    taskId: Str(200),
    kind: StringEnum(MISSION_KINDS),
    reason: StringEnum(MISSION_REASONS),
    task: Str(4000),
    context: Type.Optional(AnyObject),
    voiceCall: Type.Optional(Type.Object({ phone: Type.Optional(Str(50)), prompt: Type.Optional(Str(4000)), connectorId: Type.Optional(Str(100)) }, { additionalProperties: true })),
    channelMsg: Type.Optional(Type.Object({ channel: Type.Optional(Str(50)), to: Type.Optional(Str(300)), text: Type.Optional(Str(4000)), connectorId: Type.Optional(Str(100)) }, { additionalProperties: true })),
    proofReq: Type.Optional(Type.Array(Str(200), { maxItems: 20 })),
    resume: Type.Optional(Type.Object({ conversationId: Type.Optional(Str(200)), candidateId: Type.Optional(Str(200)), action: Type.Optional(Str(50)) }, { additionalProperties: true })),
  },
  { $id: 'ProxyMissionCreate', additionalProperties: true },
);

export const ProxyOutcome = Type.Object(
  {
    status: StringEnum(PROXY_OUTCOME_STATUSES),
    note: Type.Optional(Str(4000)),
    availability: Type.Optional(Type.Object({ status: Type.Optional(Str(100)), availableAt: Type.Optional(Str(100)), providerName: Type.Optional(Str(300)) }, { additionalProperties: true })),
    proof: Type.Optional(AnyObject),
  },
  { $id: 'ProxyOutcome', additionalProperties: true },
);
