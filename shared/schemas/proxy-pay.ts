import { Type } from '@sinclair/typebox';
import { AnyObject, Money, StringEnum } from './common.js';

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

export const MandateCreate = Type.Object(
  {
    taskId: Str(200),
    constraints: Type.Object(
      {
        maxSpend: Money,
        allowedVendors: Type.Optional(Type.Array(Str(200), { maxItems: 200 })),
        resolveRules: Type.Optional(Type.Array(Str(100), { maxItems: 50, description: 'e.g. inventoryVerified, hiddenFeeClear' })),
      },
      { additionalProperties: true },
    ),
    issuer: Type.Optional(Type.Object({ entityId: Type.Optional(Str(200)), publicKey: Type.Optional(Str(2000)) }, { additionalProperties: true })),
  },
  { $id: 'MandateCreate', additionalProperties: true },
);

export const SettleRequest = Type.Object(
  { mandateId: Str(200), taskId: Str(200), vendorId: Str(200), amount: Type.Number({ exclusiveMinimum: 0, description: 'USD' }), povRef: Type.Optional(Str(500)) },
  { $id: 'SettleRequest', additionalProperties: true },
);

export const Receipt = Type.Object(
  {
    receiptId: Type.String(),
    status: Type.Literal('settled'),
    amount: Money,
    vendorId: Type.String(),
    povRef: Type.Union([Type.String(), Type.Null()]),
    cite: Type.String({ description: 'awp:receipt:<receiptId>#v1' }),
  },
  { $id: 'Receipt' },
);
