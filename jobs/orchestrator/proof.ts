import type { Audience, EvidenceStatus, Restraint } from '../../shared/schemas/proof.js';
import type { DomainModule } from '../domain.js';

export type { Audience, EvidenceStatus };
import { DOMAINS } from '../domains.js';
import type { EvidenceItem } from '../step.js';

/** What the proof card is computed from: each completed step's evidence and doubts. */
export interface StepEvidence {
  domain: string;
  evidence: EvidenceItem[];
  openQuestions: string[];
  rejected: Array<{ option: string; reason: string }>;
}


export interface ProofAssessment {
  evidenceStatus: EvidenceStatus;
  confidence: number;
  openQuestions: string[];
  recommendedRestraint: Restraint;
  counts: { evidence: number; sourceBound: number; contradictions: number };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Scores how well a result is backed. sourceBound: every claim names a
 * retrievable source; partiallySourced: some do; unverified: none do (or
 * there is no evidence); contradicted: a claim conflicts with another.
 * Confidence starts from the sourced share, and contradictions, open
 * questions and a pending human decision pull it down.
 */
export function assessProof(steps: StepEvidence[], waiting: boolean): ProofAssessment {
  const items = steps.flatMap((s) => s.evidence);
  const sourced = items.filter((e) => e.sourceBound).length;
  const contradictions = items.filter((e) => (e.contradicts?.length ?? 0) > 0).length;
  const openQuestions = [...new Set(steps.flatMap((s) => s.openQuestions))];
  const evidenceStatus: EvidenceStatus =
    contradictions > 0 ? 'contradicted' : items.length === 0 || sourced === 0 ? 'unverified' : sourced === items.length ? 'sourceBound' : 'partiallySourced';
  let confidence = items.length === 0 ? 0.2 : 0.35 + 0.6 * (sourced / items.length);
  confidence -= 0.3 * Math.min(1, contradictions / Math.max(1, items.length)) + (contradictions > 0 ? 0.25 : 0);
  confidence -= Math.min(0.2, 0.07 * openQuestions.length);
  if (waiting) confidence -= 0.05;
  confidence = round2(Math.min(0.95, Math.max(0.05, confidence)));
  const recommendedRestraint = evidenceStatus === 'contradicted' || evidenceStatus === 'unverified' || confidence < 0.6 || openQuestions.length > 0 ? 'escalateBeforeActing' : 'proceedSafely';
  return { evidenceStatus, confidence, openQuestions, recommendedRestraint, counts: { evidence: items.length, sourceBound: sourced, contradictions } };
}

export const cite = {
  proofCard: (id: string) => `awp:proofCard:${id}#v1`,
  decisionLog: (id: string) => `awp:decisionLog:${id}#v1`,
};


const EMAIL = /[\w.+-]+@[\w-]+\.[\w.-]+/g;
/** Keys the board audience never sees: evidence sources, and what each domain module lists as identifying (vendors, prices, links). */
const BOARD_HIDDEN = new Set(['source', ...DOMAINS.flatMap((d: DomainModule) => d.redact ?? [])]);
const PHONE = /\+?\d[\d\s().-]{7,}\d/g;

/**
 * Redaction per audience. board: a summary, without source URLs, vendor
 * identities or prices. regulator: everything, with personal data (emails,
 * phone numbers) masked. legal: everything, unredacted, marked privileged.
 */
export function redactFor<T>(value: T, audience: Audience | undefined): T {
  if (!audience || audience === 'legal') return value;
  const walk = (v: unknown, key = ''): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (audience === 'board' && BOARD_HIDDEN.has(k)) continue;
        out[k] = walk(x, k);
      }
      return out;
    }
    if (typeof v === 'string' && audience === 'regulator') return v.replace(EMAIL, '[email]').replace(PHONE, '[phone]');
    if (typeof v === 'string' && audience === 'board') return v.replace(/https?:\/\/\S+/g, '[link]').replace(EMAIL, '[email]').replace(PHONE, '[phone]');
    return v;
  };
  return walk(value) as T;
}
