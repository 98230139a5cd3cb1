import type { Candidate } from '../../shared/schemas/hunt.js';

/** Pure audit rules of listings and policy rules; scam signals and contradictions of texts are triage's (triage.ts). */

export interface Contradiction {
  kind: string;
  detail: string;
  between: string[];
}

/** Listings that contradict each other (same title from one vendor at prices apart by over 10 %) or hide fees. */
export function auditCandidates(candidates: Candidate[]): {
  contradictions: Contradiction[];
  hiddenFees: string[];
  unsourced: string[];
} {
  const contradictions: Contradiction[] = [];
  const byKey = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const key = `${(c.vendor ?? '').toLowerCase()}|${c.title.toLowerCase().replace(/\W+/g, ' ').trim()}`;
    byKey.set(key, [...(byKey.get(key) ?? []), c]);
  }
  for (const group of byKey.values()) {
    const prices = group.map((c) => c.price);
    if (group.length > 1 && Math.max(...prices) > Math.min(...prices) * 1.1) {
      contradictions.push({
        kind: 'priceMismatch',
        detail: `"${group[0]!.title}" is listed at ${prices.join(' and ')}`,
        between: group.map((c) => c.candidateId),
      });
    }
  }
  const hiddenFees = candidates
    .filter((c) => c.netUsd !== null && c.netUsd - c.price > c.price * 0.2)
    .map((c) => c.candidateId);
  const unsourced = candidates.filter((c) => !c.url).map((c) => c.candidateId);
  return { contradictions, hiddenFees, unsourced };
}

const RULE_STOP = new Set([
  'must',
  'have',
  'should',
  'with',
  'that',
  'from',
  'vendor',
  'their',
  'this',
  'will',
  'only',
  'been',
]);

/**
 * Policy rules no document supports: a rule counts as met when every one of
 * its significant words appears in the documents. Deliberately strict: a
 * rule it cannot confirm becomes an open question, never a silent pass.
 */
export function unmetRules(rules: string[], documents: string[]): string[] {
  const text = documents.join('\n').toLowerCase();
  return rules.filter((rule) => {
    const words = rule
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 3 && !RULE_STOP.has(w));
    return words.length > 0 && !words.every((w) => text.includes(w));
  });
}
