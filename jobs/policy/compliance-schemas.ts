import { Type, type Static } from '@sinclair/typebox';
import { Page, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';

/** How someone is reached; `message` is any chat or in-app message. */
export const OUTREACH_CHANNELS = ['call', 'sms', 'email', 'message'] as const;
/** The lawful bases of GDPR Art. 6(1) that outreach can rest on. */
export const LAWFUL_BASES = [
  'consent',
  'contract',
  'legitimateInterest',
  'legalObligation',
  'vitalInterest',
  'publicTask',
] as const;
export const OUTREACH_DECISIONS = ['allow', 'deny', 'defer'] as const;
/** The rules an outreach decision cites; docs/api/bridge.md ("Outreach compliance") documents each. */
export const OUTREACH_RULES = [
  'outreach.suppressed',
  'outreach.noLawfulBasis',
  'outreach.noConsentForCall',
  'outreach.noConsent',
  'outreach.noRecipient',
  'outreach.tooManyRecipients',
  'outreach.quietHours',
  'outreach.unknownTimezone',
  'outreach.allowed',
] as const;

const Recipient = Type.String({
  minLength: 3,
  maxLength: 320,
  description:
    'A phone number in international form (+…) or an email address; normalised (E.164, lower case) before it ' +
    'is compared',
});

export const OutreachEvaluate = Type.Object(
  {
    channel: StringEnum(OUTREACH_CHANNELS),
    recipient: Recipient,
    purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    lawfulBasis: Type.Optional(StringEnum(LAWFUL_BASES)),
    consent: Type.Optional(Type.Boolean({ description: 'The recipient consented to be contacted for this purpose' })),
    consentToCall: Type.Optional(
      Type.Boolean({ description: 'The recipient consented to be called (required for channel call)' }),
    ),
    recipientTimezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'IANA time zone of the recipient (Europe/Berlin); quiet hours are checked in it. Omitted: the phone ' +
          "number's country when its time zones agree; else a call or text is deferred",
      }),
    ),
  },
  { $id: 'OutreachEvaluate', additionalProperties: false },
);
export type OutreachEvaluate = Static<typeof OutreachEvaluate>;

export const OutreachReason = Type.Object({ rule: StringEnum(OUTREACH_RULES), message: Type.String() });

export const OutreachDecisionView = Type.Object({
  decisionId: Type.String(),
  allowed: Type.Boolean(),
  decision: StringEnum(OUTREACH_DECISIONS),
  reasons: Type.Array(OutreachReason),
  notBefore: Type.Union([Timestamp, Type.Null()], {
    description: "With defer: the earliest time outreach is allowed (null: the recipient's time zone is unknown)",
  }),
  channel: StringEnum(OUTREACH_CHANNELS),
  recipient: Type.String({ description: 'The normalised recipient' }),
  purpose: Type.Union([Type.String(), Type.Null()]),
  lawfulBasis: Type.Union([StringEnum(LAWFUL_BASES), Type.Null()]),
  source: Type.String({ description: 'What asked: evaluate, bridge.action or proxy.mission' }),
  createdAt: Timestamp,
});
export const OutreachDecisionReply = Type.Composite([Type.Object({ ok: Type.Literal(true) }), OutreachDecisionView], {
  $id: 'OutreachDecisionReply',
});
export const OutreachDecisionPage = Page('decisions', OutreachDecisionView, 'OutreachDecisionPage');
export const OutreachDecisionQuery = Type.Composite([
  PageQuery,
  Type.Object({ decision: Type.Optional(StringEnum(OUTREACH_DECISIONS)) }),
]);

export const SuppressionCreate = Type.Object(
  { recipient: Recipient, reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) },
  { $id: 'SuppressionCreate', additionalProperties: false },
);
export const SuppressionView = Type.Object({
  suppressionId: Type.String(),
  recipient: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
});
export const SuppressionReply = Type.Object(
  { ok: Type.Literal(true), suppression: SuppressionView },
  { $id: 'SuppressionReply' },
);
export const SuppressionPage = Page('suppressions', SuppressionView, 'SuppressionPage');
