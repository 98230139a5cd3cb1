import type { Candidate } from '../../shared/schemas/hunt.js';

/**
 * Pure audit rules of listings; policy rules are policy-audit.ts's, scam signals and contradictions of texts are
 * triage's (triage.ts).
 */

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
    .filter((c) => c.net !== null && Number(c.net.amount) - c.price > c.price * 0.2)
    .map((c) => c.candidateId);
  const unsourced = candidates.filter((c) => !c.url).map((c) => c.candidateId);
  return { contradictions, hiddenFees, unsourced };
}
