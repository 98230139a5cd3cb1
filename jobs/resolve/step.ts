import type { Candidate } from '../../shared/schemas/hunt.js';
import type { EvidenceItem, StepHandler } from '../step.js';
import { auditCandidates } from './logic.js';
import { auditPolicy } from './policy-audit.js';
import { triageClaim } from './triage-service.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((d): d is string => typeof d === 'string') : []);

/**
 * The resolve step audits what it is given: the request as a claim, triaged
 * with the documents, links and sender in metadata (the same analysis as
 * POST /v1/resolve/scamTriage), and the candidates of an earlier hunt step
 * for price contradictions, hidden fees and missing sources, and checks the
 * buyer's `policyRules` against the documents (the same check as POST
 * /v1/resolve/policyAudit). A signal read from the request's own text is not
 * source-bound: only documents and links are.
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
  const vendorName = typeof input.metadata.vendorName === 'string' ? input.metadata.vendorName : undefined;
  const policy = auditPolicy(strings(input.metadata.policyRules), documents, vendorName);
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
    ...policy.checks.flatMap((c) =>
      c.evidence
        .filter((e) => e.verdict !== 'undecided' && e.source !== 'vendorName')
        .slice(0, 3)
        .map((e) => ({
          claim: `policy rule "${c.rule}" ${e.verdict === 'meets' ? 'met' : 'broken'}: "${e.span.text}" (${e.value})`,
          source: e.source,
          sourceBound: true,
        })),
    ),
  ];
  const missingEvidence = [
    ...triage.missingEvidence.filter((m) => m.kind !== 'documents' || candidates.length === 0).map((m) => m.detail),
    ...listingAudit.unsourced.map((id) => `listing ${id} has no source URL`),
  ];
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
    ...policy.checks
      .filter((c) => c.status !== 'met')
      .map((c) => `Policy rule "${c.rule}" is ${c.status}${c.expected ? ` (${c.expected})` : ''}: ${c.detail}.`),
  ];
  return {
    output: {
      risk,
      triage,
      contradictions: [...triage.contradictions, ...listingAudit.contradictions],
      hiddenFees: listingAudit.hiddenFees,
      missingEvidence,
      policyRules: policy,
      audited: { candidates: candidates.length, documents: documents.length },
    },
    evidence,
    conversation: [`Audited ${candidates.length} candidate(s) and ${documents.length} document(s): ${triage.summary}.`],
    openQuestions,
    rejected: listingAudit.hiddenFees.map((id) => ({ option: id, reason: 'fees over 20 % of the price' })),
  };
};
