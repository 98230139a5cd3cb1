import type { Candidate } from '../../shared/schemas/hunt.js';

/** Pure audit rules: scam signals in text, contradictions between figures, and what evidence is missing. */
export interface Signal {
  label: string;
  quote: string;
  weight: number;
}

const SIGNALS: Array<[RegExp, string, number]> = [
  [/\b(act now|urgent(ly)?|within (24|48) hours|immediately|final notice|account (will be )?(suspended|closed))\b/i, 'pressure to act fast', 2],
  [/\b(gift ?cards?|bitcoin|crypto|usdt|wire transfer|western union|moneygram)\b/i, 'hard-to-reverse payment method', 3],
  [/\b(password|one.?time code|otp|pin|security code|seed phrase)\b/i, 'asks for credentials', 3],
  [/\b(guaranteed (returns?|profit)|double your money|risk.?free|too good)\b/i, 'promise of guaranteed gain', 3],
  [/\b(you (have )?won|lottery|prize|inheritance)\b/i, 'unexpected windfall', 2],
  [/\b(verify your (account|identity)|click (the|this) link|log ?in here)\b/i, 'link-based verification request', 2],
  [/\b[a-z]+[01][a-z]*\.(com|net|org)\b/i, 'lookalike domain (digit in place of a letter)', 2],
];

export function scamSignals(text: string): Signal[] {
  const found: Signal[] = [];
  for (const [re, label, weight] of SIGNALS) {
    const m = re.exec(text);
    if (m) found.push({ label, quote: m[0], weight });
  }
  return found;
}

const AMOUNT = /(?:\$|usd\s?|€|eur\s?)\s?(\d{1,3}(?:[,\s]\d{3})*(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)/gi;

export function amounts(text: string): number[] {
  return [...text.matchAll(AMOUNT)].map((m) => Number(m[1]!.replace(/[,\s]/g, '')));
}

export interface Contradiction {
  kind: string;
  detail: string;
  between: string[];
}

/** Figures stated in the claim that no document supports. */
export function claimVsDocuments(claim: string, documents: string[]): Contradiction[] {
  const claimed = amounts(claim);
  if (claimed.length === 0 || documents.length === 0) return [];
  const documented = new Set(documents.flatMap(amounts));
  if (documented.size === 0) return [];
  return claimed.filter((a) => !documented.has(a)).map((a) => ({ kind: 'amountMismatch', detail: `the claim states ${a}, the documents state ${[...documented].join(', ')}`, between: ['claim', 'documents'] }));
}

/** Listings that contradict each other (same title from one vendor at prices apart by over 10 %) or hide fees. */
export function auditCandidates(candidates: Candidate[]): { contradictions: Contradiction[]; hiddenFees: string[]; unsourced: string[] } {
  const contradictions: Contradiction[] = [];
  const byKey = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const key = `${(c.vendor ?? '').toLowerCase()}|${c.title.toLowerCase().replace(/\W+/g, ' ').trim()}`;
    byKey.set(key, [...(byKey.get(key) ?? []), c]);
  }
  for (const group of byKey.values()) {
    const prices = group.map((c) => c.price);
    if (group.length > 1 && Math.max(...prices) > Math.min(...prices) * 1.1) {
      contradictions.push({ kind: 'priceMismatch', detail: `"${group[0]!.title}" is listed at ${prices.join(' and ')}`, between: group.map((c) => c.candidateId) });
    }
  }
  const hiddenFees = candidates.filter((c) => c.netUsd !== null && c.netUsd - c.price > c.price * 0.2).map((c) => c.candidateId);
  const unsourced = candidates.filter((c) => !c.url).map((c) => c.candidateId);
  return { contradictions, hiddenFees, unsourced };
}

export function riskLabel(signals: Signal[], contradictions: number): { label: string; severity: 'low' | 'medium' | 'high' } {
  const score = signals.reduce((s, x) => s + x.weight, 0) + 2 * contradictions;
  if (score >= 5) return { label: 'likelyScam', severity: 'high' };
  if (score >= 2) return { label: 'suspicious', severity: 'medium' };
  return { label: 'noStrongSignals', severity: 'low' };
}

const RULE_STOP = new Set(['must', 'have', 'should', 'with', 'that', 'from', 'vendor', 'their', 'this', 'will', 'only', 'been']);

/**
 * Policy rules no document supports: a rule counts as met when every one of
 * its significant words appears in the documents. Deliberately strict: a
 * rule it cannot confirm becomes an open question, never a silent pass.
 */
export function unmetRules(rules: string[], documents: string[]): string[] {
  const text = documents.join('\n').toLowerCase();
  return rules.filter((rule) => {
    const words = rule.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 3 && !RULE_STOP.has(w));
    return words.length > 0 && !words.every((w) => text.includes(w));
  });
}
