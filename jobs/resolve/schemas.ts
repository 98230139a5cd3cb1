import { Type } from '@sinclair/typebox';
import { Id, Ok, StringEnum } from '../../shared/schemas/common.js';

/**
 * Scam triage (POST /v1/resolve/scamTriage) and chain tracing (POST /v1/tools/chainTrace): requests, answers,
 * vocabularies.
 */

export const RISK_LABELS = ['likelyScam', 'suspicious', 'likelyLegitimate', 'insufficientEvidence'] as const;
export const SEVERITIES = ['none', 'low', 'medium', 'high', 'critical'] as const;
export const FTC_SIGNS = [
  'pretendsToBeKnownOrganization',
  'problemOrPrize',
  'pressureToActNow',
  'payInSpecificWay',
] as const;
export const IC3_CATEGORIES = [
  'governmentImpersonation',
  'techSupport',
  'extortion',
  'investment',
  'advanceFee',
  'overpayment',
  'businessEmailCompromise',
  'phishingSpoofing',
  'lotterySweepstakesInheritance',
  'nonPaymentNonDelivery',
  'realEstate',
  'confidenceRomance',
  'employment',
] as const;
export const RULE_IDS = [
  'pay.giftCard',
  'pay.wireService',
  'pay.wire',
  'pay.crypto',
  'pay.paymentApp',
  'fee.advance',
  'fee.overpayment',
  'pay.fakeCheck',
  'pressure.deadline',
  'secrecy.request',
  'threat.arrest',
  'threat.accountClosure',
  'impersonation.agency',
  'impersonation.bank',
  'impersonation.brand',
  'bankDetails.changed',
  'lookalike.domain',
  'tooGood.returns',
  'tooGood.prize',
  'tooGood.price',
  'credentials.request',
  'remoteAccess.request',
  'link.verify',
  'rental.payBeforeViewing',
  'rental.keysByMail',
  'rental.ownerAway',
  'rental.depositUpfront',
  'romance.moneyRequest',
  'romance.cantMeet',
  'techSupport.callNumber',
  'techSupport.unsolicited',
  'government.paymentDemand',
  'job.payToWork',
  'job.moneyMule',
  'job.unusualOffer',
  'contradiction.bankDetails',
  'contradiction.payee',
  'contradiction.domain',
  'llm.signal',
] as const;
export const FACT_KINDS = [
  'amount',
  'currency',
  'date',
  'name',
  'payee',
  'bankDetails',
  'domain',
  'paymentMethod',
] as const;
export const MISSING_KINDS = ['documents', 'senderDomain', 'callBack', 'invoiceNumber', 'originalBankDetails'] as const;
export const RESTRAINTS = ['proceedSafely', 'verifyBeforeActing', 'escalateBeforeActing', 'doNotEngage'] as const;
export const NEXT_ACTIONS = [
  'requestHumanReview',
  'verifyThroughKnownChannel',
  'provideMoreEvidence',
  'noActionNeeded',
] as const;

export const ScamTriageRequest = Type.Object(
  {
    claim: Type.String({
      minLength: 1,
      maxLength: 20_000,
      description: 'The claim or message to triage (a question about it may wrap it)',
    }),
    documents: Type.Optional(
      Type.Array(Type.String({ maxLength: 100_000 }), {
        maxItems: 50,
        description: 'Texts to check the claim against: the message as received, invoices, statements',
      }),
    ),
    urls: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2_000 }), {
        maxItems: 50,
        description: 'Links the message carries; read as text (never fetched) for lookalike domains',
      }),
    ),
    sender: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: "The sender's address, number or name as shown" }),
    ),
    taskId: Type.Optional(Id('A task of yours this triage belongs to (404 when it is not yours)')),
  },
  { $id: 'ScamTriageRequest', additionalProperties: true },
);

export const Span = Type.Object({
  text: Type.String({ description: 'The exact text the signal or fact was read from' }),
  start: Type.Integer({ minimum: 0, description: 'Offset (UTF-16 code units) into the source text' }),
  end: Type.Integer({ minimum: 0, description: 'End offset, exclusive' }),
});

const Side = Type.Object({ source: Type.String(), value: Type.String(), span: Span });

export const Triage = Type.Object(
  {
    risk: Type.Object({
      label: StringEnum(RISK_LABELS),
      severity: StringEnum(SEVERITIES),
      score: Type.Integer({ minimum: 0, description: 'Sum of the weights of the distinct rules that fired' }),
    }),
    evidenceMap: Type.Array(
      Type.Object({
        ruleId: StringEnum(RULE_IDS),
        signal: Type.String(),
        source: Type.String({ description: '`claim`, `document[i]`, `sender`, or the URL itself' }),
        span: Span,
        weight: Type.Integer({ minimum: 0 }),
        ftcSign: Type.Union([StringEnum(FTC_SIGNS), Type.Null()]),
        ic3Category: Type.Union([StringEnum(IC3_CATEGORIES), Type.Null()]),
        origin: StringEnum(['rule', 'llm'] as const),
        detail: Type.Optional(Type.String()),
      }),
    ),
    contradictions: Type.Array(
      Type.Object({
        kind: StringEnum(FACT_KINDS),
        between: StringEnum(['claimVsDocument', 'documentVsDocument'] as const),
        detail: Type.String(),
        first: Side,
        second: Side,
      }),
    ),
    missingEvidence: Type.Array(
      Type.Object({ kind: StringEnum(MISSING_KINDS), detail: Type.String(), decisive: Type.Boolean() }),
    ),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    recommendedRestraint: StringEnum(RESTRAINTS),
    nextAction: StringEnum(NEXT_ACTIONS),
    taxonomy: Type.Object({
      ftcSigns: Type.Array(StringEnum(FTC_SIGNS)),
      ic3Categories: Type.Array(StringEnum(IC3_CATEGORIES)),
    }),
    summary: Type.String(),
    llm: StringEnum(['notConfigured', 'added', 'nothingAdded', 'fellBack'] as const, {
      description: 'What the optional LLM did: it may only add signals',
    }),
  },
  { $id: 'Triage' },
);

export const ScamTriageResult = Ok(
  { taskId: Type.Union([Type.String(), Type.Null()]), triage: Triage },
  'ScamTriageResult',
);
