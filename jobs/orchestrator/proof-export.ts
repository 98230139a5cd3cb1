import type { Deps } from '../../shared/deps.js';
import { getProofCard } from '../../shared/db/proof-cards.js';
import { notFound } from '../../shared/errors.js';
import { redactFor, type Audience } from './proof.js';

export async function loadProofCard(deps: Pick<Deps, 'db'>, accountId: string, cardId: string) {
  const row = await getProofCard(deps.db, accountId, cardId);
  if (!row) throw notFound(`Proof card ${cardId}`);
  return row;
}

const REDACTION: Record<Audience, string> = {
  legal: 'none (privileged)',
  board:
    'summary: claims reduced to their structure, rejected options unnamed; sources, vendors, item ids, links ' +
    'and amounts removed; emails and phone numbers masked',
  regulator:
    'personal data masked: email and phone fields, and emails and phone numbers in free text; ids and timestamps kept',
};

/**
 * A proof card as a ledger entry: `service/v1` (the card and its decision
 * log) or `ledger/v1` (the compact row an external ledger keeps), redacted
 * for the audience it is meant for.
 */
export async function exportProofCard(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  cardId: string,
  opts: { format: 'service/v1' | 'ledger/v1'; includeRejectedPaths: boolean; audience?: Audience },
) {
  const { card, decision } = await loadProofCard(deps, accountId, cardId);
  const rejectedPaths = opts.includeRejectedPaths ? decision.rejectedPaths : [];
  const exportedAt = new Date().toISOString();
  const entry =
    opts.format === 'ledger/v1'
      ? {
          format: 'ledger/v1',
          citeRef: card.citeRef,
          evidenceStatus: card.evidenceStatus,
          confidence: card.confidence,
          selectedOption: decision.selectedOption,
          rejectedPaths,
          exportedAt,
        }
      : {
          format: 'service/v1',
          cite: card.cite,
          citeRef: card.citeRef,
          proofCard: card,
          decision: {
            route: decision.route,
            status: decision.status,
            selectedOption: decision.selectedOption,
            rejectedPaths,
            evidence: decision.evidence,
            counts: decision.counts,
          },
          exportedAt,
        };
  if (!opts.audience) return entry;
  return {
    ...redactFor(entry, opts.audience),
    audience: opts.audience,
    redaction: REDACTION[opts.audience],
    ...(opts.audience === 'legal' ? { privileged: true } : {}),
  };
}
