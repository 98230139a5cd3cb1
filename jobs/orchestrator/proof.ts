import type { Audience, EvidenceStatus, Restraint } from './proof-schemas.js';
import type { DomainModule } from '../domain.js';

export type { Audience, EvidenceStatus };
import { fromModules } from '../module-registry.js';
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
    contradictions > 0
      ? 'contradicted'
      : items.length === 0 || sourced === 0
        ? 'unverified'
        : sourced === items.length
          ? 'sourceBound'
          : 'partiallySourced';
  let confidence = items.length === 0 ? 0.2 : 0.35 + 0.6 * (sourced / items.length);
  confidence -= 0.3 * Math.min(1, contradictions / Math.max(1, items.length)) + (contradictions > 0 ? 0.25 : 0);
  confidence -= Math.min(0.2, 0.07 * openQuestions.length);
  if (waiting) confidence -= 0.05;
  confidence = round2(Math.min(0.95, Math.max(0.05, confidence)));
  const recommendedRestraint =
    evidenceStatus === 'contradicted' || evidenceStatus === 'unverified' || confidence < 0.6 || openQuestions.length > 0
      ? 'escalateBeforeActing'
      : 'proceedSafely';
  return {
    evidenceStatus,
    confidence,
    openQuestions,
    recommendedRestraint,
    counts: { evidence: items.length, sourceBound: sourced, contradictions },
  };
}

export const cite = {
  proofCard: (id: string) => `awp:proofCard:${id}#v1`,
  decisionLog: (id: string) => `awp:decisionLog:${id}#v1`,
};

/**
 * Keys the board audience never sees: evidence sources, and what each domain module lists as identifying (vendors,
 * prices, links, item ids).
 */
const boardHidden = fromModules((m) => new Set(['source', ...m.domains.flatMap((d: DomainModule) => d.redact ?? [])]));

/**
 * Keys whose strings are references, vocabularies or timestamps, never prose:
 * masking inside them breaks a cite, an id or a date (a timestamp once
 * came out as `[phone]T13:13:00.473Z`), and they carry no personal data.
 */
const STRUCTURAL = new Set([
  'cite',
  'citeRef',
  'format',
  'kind',
  'status',
  'evidenceStatus',
  'recommendedRestraint',
  'route',
  'domain',
  'currency',
  'audience',
  'redaction',
  'intent',
  'inputKind',
  'action',
  'contradicts',
]);
const isIdKey = (key: string) => /^id$|Id$|Ids$|_id$/.test(key);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** A field that is personal data as a whole (an email or phone field) is masked whole, whatever it holds. */
function personalField(key: string): string | null {
  if (/e-?mail/i.test(key)) return '[email]';
  if (/phone|mobile|fax/i.test(key)) return '[phone]';
  return null;
}

// Inside free text, in this order: a date or time is kept as it is; then links, emails, amounts and phone numbers.
const TEXT_TOKENS = new RegExp(
  [
    String.raw`(?<date>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)`,
    String.raw`(?<link>https?:\/\/[^\s"'<>]+)`,
    String.raw`(?<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)`,
    String.raw`(?<amount>[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?[A-Z]{3}\b)`,
    String.raw`(?<phone>\+?\(?\d[\d\s().-]{6,}\d)`,
  ].join('|'),
  'g',
);

/** Masks personal data (regulator), and also links and amounts (board), in one free-text string. */
function maskText(text: string, audience: 'board' | 'regulator'): string {
  return text.replace(TEXT_TOKENS, (match, ...args) => {
    const g = args.at(-1) as Record<string, string | undefined>;
    if (g.date) return match;
    if (g.email) return '[email]';
    if (g.phone) return match.replace(/\D/g, '').length >= 7 ? '[phone]' : match;
    if (g.link) return audience === 'board' ? '[link]' : match;
    if (g.amount) return audience === 'board' ? '[amount]' : match;
    return match;
  });
}

type Item = Record<string, unknown>;

/**
 * The board sees what the evidence is, not what it says: each claim becomes
 * its structure (domain, whether a source backs it, whether it is
 * contradicted), because claim text carries prices, vendors and item names
 * that no list of keys can catch.
 */
function boardEvidence(items: Item[]): Item[] {
  const seen: Record<string, number> = {};
  return items.map((e) => {
    const domain = typeof e.domain === 'string' ? e.domain : 'run';
    const n = (seen[domain] = (seen[domain] ?? 0) + 1);
    const contradicted = Array.isArray(e.contradicts) && e.contradicts.length > 0;
    const claim =
      `${domain} claim ${n}: ` +
      `${e.sourceBound ? 'backed by a named source' : 'no retrievable source'}${
        contradicted ? '; contradicted ' + 'by other evidence' : ''
      }`;
    return {
      ...(typeof e.domain === 'string' ? { domain } : {}),
      claim,
      sourceBound: Boolean(e.sourceBound),
      contradicted,
    };
  });
}

/** Rejected options for the board: which domain set one aside and why (amounts masked), without naming the option. */
function boardRejected(items: Item[]): Item[] {
  const seen: Record<string, number> = {};
  return items.map((r) => {
    const domain = typeof r.domain === 'string' ? r.domain : 'run';
    const n = (seen[domain] = (seen[domain] ?? 0) + 1);
    return {
      ...(typeof r.domain === 'string' ? { domain } : {}),
      option: `${domain} option ${n}`,
      reason: typeof r.reason === 'string' ? maskText(r.reason, 'board') : r.reason,
    };
  });
}

const objects = (v: unknown): v is Item[] =>
  Array.isArray(v) && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x));

/**
 * Redaction per audience, by field and by structure (never a pattern over
 * the whole JSON). board: a summary — claims reduced to their structure,
 * rejected options unnamed, sources and each domain's identifying keys
 * removed, links, amounts, emails and phone numbers masked in free text.
 * regulator: everything, with personal data masked (email and phone fields
 * whole; emails and phone numbers inside free text). legal: everything,
 * unredacted (the export marks it privileged). Ids, cites, vocabularies and
 * timestamps are never masked for anyone.
 */
export function redactFor<T>(value: T, audience: Audience | undefined): T {
  if (!audience || audience === 'legal') return value;
  const hidden = audience === 'board' ? boardHidden() : undefined;
  const walk = (v: unknown, key: string): unknown => {
    if (audience === 'board' && key === 'evidence' && objects(v) && v.every((e) => 'claim' in e))
      return boardEvidence(v);
    if (audience === 'board' && key === 'rejectedPaths' && objects(v)) return boardRejected(v);
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') {
      const out: Item = {};
      for (const [k, x] of Object.entries(v)) {
        if (hidden?.has(k)) continue;
        out[k] = walk(x, k);
      }
      return out;
    }
    if (typeof v !== 'string') return v;
    const whole = personalField(key);
    if (whole) return whole;
    if (STRUCTURAL.has(key) || isIdKey(key) || DATE_TIME.test(v)) return v;
    return maskText(v, audience);
  };
  return walk(value, '') as T;
}
