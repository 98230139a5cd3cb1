import { Type, type Static } from '@sinclair/typebox';
import { Id, Ok, StringEnum } from '../../shared/schemas/common.js';
import { Span } from './schemas.js';

/**
 * A buyer's policy rules checked against documents (POST /v1/resolve/policyAudit, and `policyRules` of the resolve
 * step): each rule read as a check of a known kind, each check met, broken or open with the spans that decide it.
 */

export const POLICY_CHECK_KINDS = [
  'amountLimit',
  'allowedVendors',
  'excludedVendors',
  'allowedCountries',
  'excludedCountries',
  'dateLimit',
  'period',
  'requiredDocument',
  'unparsed',
] as const;
export const POLICY_STATUSES = ['met', 'broken', 'open'] as const;
export const POLICY_VERDICTS = ['meets', 'breaks', 'undecided'] as const;

export const PolicyEvidence = Type.Object({
  source: Type.String({ description: '`document[i]` (the i-th document, from 0) or `vendorName`' }),
  span: Span,
  value: Type.String({ description: 'What was read there, normalized ("4,800.00 EUR total", "DE (IBAN)")' }),
  verdict: StringEnum(POLICY_VERDICTS, {
    description: 'Whether this span meets the check, breaks it, or cannot decide it (another currency, no year)',
  }),
});

export const PolicyCheck = Type.Object(
  {
    rule: Type.String({ description: 'The rule as written' }),
    kind: StringEnum(POLICY_CHECK_KINDS, {
      description: 'What the rule was read as; `unparsed` when it could not be read (always open, never met)',
    }),
    status: StringEnum(POLICY_STATUSES, {
      description: 'met: the documents show it; broken: a span breaks it; open: nothing decides it',
    }),
    expected: Type.Union([Type.String(), Type.Null()], {
      description: 'The check as read ("each document\'s total ≤ 5,000.00 EUR"); null when unparsed',
    }),
    detail: Type.String({ description: 'Why the check has its status' }),
    evidence: Type.Array(PolicyEvidence, { description: 'Every span the check read, the deciding ones first' }),
  },
  { $id: 'PolicyCheck' },
);

export const PolicyAudit = Type.Object(
  {
    checked: Type.Integer({ minimum: 0, description: 'Rules checked' }),
    met: Type.Integer({ minimum: 0, description: 'Checks met' }),
    broken: Type.Integer({ minimum: 0, description: 'Checks broken' }),
    open: Type.Integer({ minimum: 0, description: 'Checks open' }),
    unmet: Type.Array(Type.String(), { description: 'Rules with a check that is not met (broken or open)' }),
    checks: Type.Array(PolicyCheck, {
      description: 'One check per rule; a rule naming several required documents has one per document',
    }),
  },
  { $id: 'PolicyAudit' },
);
export type PolicyAudit = Static<typeof PolicyAudit>;
export type PolicyCheck = Static<typeof PolicyCheck>;
export type PolicyEvidence = Static<typeof PolicyEvidence>;

export const PolicyAuditRequest = Type.Object(
  {
    rules: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
      minItems: 1,
      maxItems: 50,
      description:
        'Rules as a buyer writes them: amount limits ("payment must not exceed 5,000 EUR"), allowed vendors or ' +
        'countries ("only suppliers in Germany or Austria"), dates and terms ("delivery no later than 2026-03-31", ' +
        '"invoice due within 30 days"), required documents ("a signed contract and a W-9 are required")',
    }),
    documents: Type.Optional(
      Type.Array(Type.String({ maxLength: 100_000 }), {
        maxItems: 50,
        description: 'Texts to check the rules against: invoices, contracts, certificates, quotes',
      }),
    ),
    vendorName: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'The vendor under review, checked as a vendor name' }),
    ),
    taskId: Type.Optional(Id('A task of yours this audit belongs to (404 when it is not yours)')),
  },
  { $id: 'PolicyAuditRequest', additionalProperties: true },
);

export const PolicyAuditResult = Ok(
  { taskId: Type.Union([Type.String(), Type.Null()]), policy: PolicyAudit },
  'PolicyAuditResult',
);
