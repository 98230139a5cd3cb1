import type { Candidate } from '../../shared/schemas/hunt.js';
import type { EvidenceItem, StepHandler } from '../step.js';
import { auditCandidates, claimVsDocuments, riskLabel, scamSignals, unmetRules } from './logic.js';

/**
 * The resolve step audits what it is given: the request text (and documents
 * in metadata) for scam signals and contradicted figures, and the candidates
 * of an earlier hunt step for price contradictions, hidden fees and missing sources.
 */
export const resolveStep: StepHandler = async (input) => {
  const documents = Array.isArray(input.metadata.documents) ? (input.metadata.documents as unknown[]).filter((d): d is string => typeof d === 'string') : [];
  const signals = scamSignals([input.request, ...documents].join('\n'));
  const contradictions = claimVsDocuments(input.request, documents);
  const candidates = ((input.prior.hunt?.candidates ?? []) as Candidate[]).filter((c) => c && typeof c.candidateId === 'string');
  const listingAudit = auditCandidates(candidates);
  contradictions.push(...listingAudit.contradictions);

  const evidence: EvidenceItem[] = [
    ...signals.map((s) => ({ claim: `${s.label}: "${s.quote}"`, source: 'request text', sourceBound: true })),
    ...contradictions.map((c) => ({ claim: c.detail, source: c.between.join(' vs '), sourceBound: true, contradicts: c.between })),
    ...candidates.filter((c) => !listingAudit.unsourced.includes(c.candidateId)).slice(0, 10).map((c) => ({ claim: `${c.title} is listed by a retrievable source`, source: c.url, sourceBound: true })),
  ];
  const missingEvidence = [
    ...listingAudit.unsourced.map((id) => `listing ${id} has no source URL`),
    ...(documents.length === 0 && candidates.length === 0 ? ['no documents were provided to check the claim against'] : []),
  ];
  const rules = Array.isArray(input.metadata.policyRules) ? (input.metadata.policyRules as unknown[]).filter((r): r is string => typeof r === 'string') : [];
  const unmet = unmetRules(rules, documents);
  const risk = riskLabel(signals, contradictions.length);
  const openQuestions = [
    ...(risk.severity !== 'low' ? [`Risk is ${risk.severity} (${risk.label}); have a human review before acting.`] : []),
    ...(listingAudit.hiddenFees.length > 0 ? [`${listingAudit.hiddenFees.length} listing(s) add fees over 20 % of the price.`] : []),
    ...unmet.map((rule) => `No document shows the policy rule "${rule}" is met.`),
  ];
  return {
    output: { risk, signals, contradictions, hiddenFees: listingAudit.hiddenFees, missingEvidence, policyRules: { checked: rules.length, unmet }, audited: { candidates: candidates.length, documents: documents.length } },
    evidence,
    conversation: [`Audited ${candidates.length} candidate(s) and ${documents.length} document(s): ${signals.length} risk signal(s), ${contradictions.length} contradiction(s).`],
    openQuestions,
    rejected: listingAudit.hiddenFees.map((id) => ({ option: id, reason: 'fees over 20 % of the price' })),
  };
};
