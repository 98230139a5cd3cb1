import type { MISSING_KINDS, NEXT_ACTIONS, RESTRAINTS, RISK_LABELS, SEVERITIES } from './schemas.js';
import { findContradictions, sourceFacts, type Contradiction, type SourceText } from './contradictions.js';
import type { Span } from './facts.js';
import { lookalikeOf } from './lookalike.js';
import { phraseHits, RULE_DOCS, type FtcSign, type Ic3Category, type RuleId } from './triage-rules.js';

/**
 * Scam triage: the one analysis behind POST /v1/resolve/scamTriage and the
 * resolve step. Deterministic and explainable: every signal names its rule,
 * its source and the exact span; the score is the sum of the weights of the
 * distinct rules that fired; thresholds map it to a severity and a label. Pure.
 */

export interface TriageInput {
  claim: string;
  documents?: string[];
  urls?: string[];
  sender?: string;
}

export interface EvidenceSignal {
  ruleId: RuleId;
  signal: string;
  source: string;
  span: Span;
  weight: number;
  ftcSign: FtcSign | null;
  ic3Category: Ic3Category | null;
  origin: 'rule' | 'llm';
  detail?: string;
}

export interface MissingEvidence {
  kind: (typeof MISSING_KINDS)[number];
  detail: string;
  /** True when this is what would settle the case either way. */
  decisive: boolean;
}

export interface Triage {
  risk: { label: (typeof RISK_LABELS)[number]; severity: (typeof SEVERITIES)[number]; score: number };
  evidenceMap: EvidenceSignal[];
  contradictions: Contradiction[];
  missingEvidence: MissingEvidence[];
  confidence: number;
  recommendedRestraint: (typeof RESTRAINTS)[number];
  nextAction: (typeof NEXT_ACTIONS)[number];
  taxonomy: { ftcSigns: FtcSign[]; ic3Categories: Ic3Category[] };
  summary: string;
}

/** An extra signal (the optional LLM's) already located in its source. */
export type AddedSignal = Pick<EvidenceSignal, 'source' | 'span' | 'signal'>;

/** The texts triage reads, each under the source name its evidence cites. */
export function triageSources(input: TriageInput): SourceText[] {
  return [
    { source: 'claim', text: input.claim },
    ...(input.documents ?? []).map((text, i) => ({ source: `document[${i}]`, text })),
    ...(input.sender ? [{ source: 'sender', text: input.sender }] : []),
    ...(input.urls ?? []).map((url) => ({ source: url, text: url })),
  ];
}

function signal(
  ruleId: RuleId,
  source: string,
  span: Span,
  origin: 'rule' | 'llm' = 'rule',
  detail?: string,
  label?: string,
): EvidenceSignal {
  const doc = RULE_DOCS[ruleId];
  return {
    ruleId,
    signal: label ?? doc.signal,
    source,
    span,
    weight: doc.weight,
    ftcSign: doc.ftcSign,
    ic3Category: doc.ic3,
    origin,
    ...(detail ? { detail } : {}),
  };
}

const CONTRADICTION_RULES: Partial<Record<Contradiction['kind'], RuleId>> = {
  bankDetails: 'contradiction.bankDetails',
  payee: 'contradiction.payee',
  domain: 'contradiction.domain',
};

function severityOf(score: number): Triage['risk']['severity'] {
  return score >= 14 ? 'critical' : score >= 6 ? 'high' : score >= 3 ? 'medium' : score >= 1 ? 'low' : 'none';
}

const REFERENCE_NUMBER = new RegExp(
  [
    String.raw`\b(?:invoice|inv|reference|ref|order|case|policy|account)\s*(?:no\.?|number`,
    String.raw`|num|#|id)?\s*[:#]?\s*[A-Z0-9][A-Z0-9-]{3,}\b`,
  ].join(''),
  'i',
);
const WORDS = /[\p{L}\p{N}]+/gu;

function missingEvidence(
  input: TriageInput,
  sources: SourceText[],
  rules: Set<RuleId>,
  hasDomain: boolean,
  label: Triage['risk']['label'],
): MissingEvidence[] {
  const out: MissingEvidence[] = [];
  const impersonates = [...rules].some((r) => r.startsWith('impersonation.') || r === 'lookalike.domain');
  const asksToPay = [...rules].some((r) => r.startsWith('pay.') || r.startsWith('fee.'));
  const unsettled = label === 'suspicious' || label === 'insufficientEvidence';
  if ((input.documents ?? []).length === 0)
    out.push({
      kind: 'documents',
      detail:
        'no documents were given: the message as received (with its headers) or the invoice or statement it refers to',
      decisive: unsettled,
    });
  if (!input.sender && !hasDomain)
    out.push({
      kind: 'senderDomain',
      detail: "the sender's address or number and its registered domain, to check against the organization's own",
      decisive: impersonates && unsettled,
    });
  if (impersonates)
    out.push({
      kind: 'callBack',
      detail:
        'a call-back through a number you already know (the card, a statement, the official website), never ' +
        'one given in the message',
      decisive: true,
    });
  if (asksToPay && !sources.some((s) => REFERENCE_NUMBER.test(s.text)))
    out.push({
      kind: 'invoiceNumber',
      detail: 'an invoice, order or case number to check against your own records',
      decisive: unsettled,
    });
  if (rules.has('bankDetails.changed') || rules.has('contradiction.bankDetails'))
    out.push({
      kind: 'originalBankDetails',
      detail: 'the bank details on file from earlier payments, confirmed by phone with a known contact',
      decisive: true,
    });
  return out;
}

/** The triage of a claim and its documents, with any signals an LLM added. */
export function analyseClaim(input: TriageInput, added: AddedSignal[] = []): Triage {
  const sources = triageSources(input);
  const evidenceMap: EvidenceSignal[] = [];
  for (const { source, text } of sources) {
    for (const hit of phraseHits(text))
      evidenceMap.push(signal(hit.ruleId, source, { text: hit.text, start: hit.start, end: hit.end }));
  }
  const facts = sourceFacts(sources);
  const seenLookalikes = new Set<string>();
  for (const fact of facts.filter((f) => f.kind === 'domain')) {
    const found = lookalikeOf(fact.value, fact.host);
    if (!found || seenLookalikes.has(`${fact.source}|${found.domain}`)) continue;
    seenLookalikes.add(`${fact.source}|${found.domain}`);
    evidenceMap.push(
      signal(
        'lookalike.domain',
        fact.source,
        fact.span,
        'rule',
        `lookalike: ${found.domain} imitates ${found.imitates} (${found.how})`,
      ),
    );
  }
  const contradictions = findContradictions(facts);
  for (const c of contradictions) {
    const ruleId = CONTRADICTION_RULES[c.kind];
    if (ruleId && !evidenceMap.some((e) => e.ruleId === ruleId))
      evidenceMap.push(signal(ruleId, c.second.source, c.second.span, 'rule', c.detail));
  }
  for (const a of added) evidenceMap.push(signal('llm.signal', a.source, a.span, 'llm', undefined, a.signal));

  const rules = new Set(evidenceMap.map((e) => e.ruleId));
  const score = [...rules].reduce((sum, r) => sum + RULE_DOCS[r].weight, 0);
  const words = (input.claim.match(WORDS) ?? []).length + (input.documents ?? []).join(' ').split(/\s+/).length - 1;
  const label: Triage['risk']['label'] =
    score >= 6
      ? 'likelyScam'
      : score >= 3
        ? 'suspicious'
        : words < 10 && (input.documents ?? []).length === 0 && !input.urls?.length
          ? 'insufficientEvidence'
          : 'likelyLegitimate';
  const severity = label === 'insufficientEvidence' ? 'none' : severityOf(score);
  const missing = missingEvidence(
    input,
    sources,
    rules,
    facts.some((f) => f.kind === 'domain'),
    label,
  );
  const decisive = missing.filter((m) => m.decisive).length;

  const base = {
    likelyScam: 0.6 + Math.min(0.3, 0.025 * (score - 6)),
    suspicious: 0.5,
    likelyLegitimate: (input.documents ?? []).length > 0 ? 0.75 : 0.6,
    insufficientEvidence: 0.3,
  }[label];
  const confidence = Math.round(Math.min(0.95, Math.max(0.05, base - Math.min(0.3, 0.1 * decisive))) * 100) / 100;
  const bankConflict = rules.has('contradiction.bankDetails') || rules.has('bankDetails.changed');
  const recommendedRestraint: Triage['recommendedRestraint'] =
    label === 'likelyScam'
      ? 'doNotEngage'
      : label === 'suspicious' || bankConflict
        ? 'escalateBeforeActing'
        : label === 'insufficientEvidence' || decisive > 0
          ? 'verifyBeforeActing'
          : 'proceedSafely';
  const nextAction: Triage['nextAction'] =
    label === 'likelyScam' || bankConflict
      ? 'requestHumanReview'
      : label === 'suspicious'
        ? 'verifyThroughKnownChannel'
        : label === 'insufficientEvidence'
          ? 'provideMoreEvidence'
          : 'noActionNeeded';
  const ftcSigns = [...new Set(evidenceMap.map((e) => e.ftcSign).filter((s): s is FtcSign => s !== null))];
  const ic3Categories = [...new Set(evidenceMap.map((e) => e.ic3Category).filter((s): s is Ic3Category => s !== null))];
  const summary =
    `${label} (${severity}, score ${score}): ${rules.size} rule(s) ` +
    `fired${ftcSigns.length ? `, FTC signs ${ftcSigns.join(', ')}` : ''}; ${contradictions.length} ` +
    `contradiction(s); ${missing.length} piece(s) of evidence missing`;
  return {
    risk: { label, severity, score },
    evidenceMap,
    contradictions,
    missingEvidence: missing,
    confidence,
    recommendedRestraint,
    nextAction,
    taxonomy: { ftcSigns, ic3Categories },
    summary,
  };
}
