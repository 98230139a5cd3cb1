import type { Candidate } from '../../shared/schemas/hunt.js';
import type { EvidenceItem, StepHandler } from '../step.js';
import { auditCandidates, unmetRules } from './logic.js';
import { triageClaim } from './triage-service.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((d): d is string => typeof d === 'string') : []);

/**
 * The resolve step audits what it is given: the request as a claim, triaged
 * with the documents, links and sender in metadata (the same analysis as
 * POST /v1/resolve/scamTriage), and the candidates of an earlier hunt step
 * for price contradictions, hidden fees and missing sources. A signal read
 * from the request's own text is not source-bound: only documents and links are.
 */
export const resolveStep: StepHandler = async (input, deps) => {
  const documents = strings(input.metadata.documents);
  const urls = [...strings(input.metadata.urls), ...strings(input.extras.urls)];
  const sender = typeof input.metadata.sender === 'string' ? input.metadata.sender : undefined;
  const triage = await triageClaim(deps, { claim: input.request, documents, urls, sender }, input.signal);
  const candidates = ((input.prior.hunt?.candidates ?? []) as Candidate[]).filter(
    (c) => c && typeof c.candidateId === 'string',
  );
  const listingAudit = auditCandidates(candidates);
  const bound = (source: string) => source !== 'claim' && source !== 'sender';

  const evidence: EvidenceItem[] = [
    ...triage.evidenceMap.map((s) => ({
      claim: `${s.signal} (${s.ruleId}): "${s.span.text}"`,
      source: s.source,
      sourceBound: bound(s.source),
    })),
    ...triage.contradictions.map((c) => ({
      claim: c.detail,
      source: `${c.first.source} vs ${c.second.source}`,
      sourceBound: bound(c.first.source) && bound(c.second.source),
      contradicts: [c.first.source, c.second.source],
    })),
    ...listingAudit.contradictions.map((c) => ({
      claim: c.detail,
      source: c.between.join(' vs '),
      sourceBound: true,
      contradicts: c.between,
    })),
    ...candidates
      .filter((c) => !listingAudit.unsourced.includes(c.candidateId))
      .slice(0, 10)
      .map((c) => ({ claim: `${c.title} is listed by a retrievable source`, source: c.url, sourceBound: true })),
  ];
  const missingEvidence = [
    ...triage.missingEvidence.filter((m) => m.kind !== 'documents' || candidates.length === 0).map((m) => m.detail),
    ...listingAudit.unsourced.map((id) => `listing ${id} has no source URL`),
  ];
  const rules = strings(input.metadata.policyRules);
  const unmet = unmetRules(rules, documents);
  const { risk } = triage;
  const openQuestions = [
    ...(risk.severity !== 'none' && risk.severity !== 'low'
      ? [`Risk is ${risk.severity} (${risk.label}); have a human review before acting.`]
      : []),
    ...triage.missingEvidence
      .filter((m) => m.decisive && (m.kind !== 'documents' || candidates.length === 0))
      .map((m) => `Missing evidence that would decide it: ${m.detail}.`),
    ...(listingAudit.hiddenFees.length > 0
      ? [`${listingAudit.hiddenFees.length} listing(s) add fees over 20 % of the price.`]
      : []),
    ...unmet.map((rule) => `No document shows the policy rule "${rule}" is met.`),
  ];
  return {
    output: {
      risk,
      triage,
      contradictions: [...triage.contradictions, ...listingAudit.contradictions],
      hiddenFees: listingAudit.hiddenFees,
      missingEvidence,
      policyRules: { checked: rules.length, unmet },
      audited: { candidates: candidates.length, documents: documents.length },
    },
    evidence,
    conversation: [`Audited ${candidates.length} candidate(s) and ${documents.length} document(s): ${triage.summary}.`],
    openQuestions,
    rejected: listingAudit.hiddenFees.map((id) => ({ option: id, reason: 'fees over 20 % of the price' })),
  };
};
