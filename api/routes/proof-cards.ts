import { Type } from '@sinclair/typebox';
import { redactFor } from '../../jobs/orchestrator/proof.js';
import { notFound } from '../../shared/errors.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('audit', { read: ['audit:read'], write: ['audit:read'] });

export const ProofCardExport = Type.Object(
  {
    format: Type.Union([Type.Literal('service/v1'), Type.Literal('ledger/v1')], { default: 'service/v1' }),
    includeRejectedPaths: Type.Boolean({ default: true }),
    audience: Type.Optional(Type.Union([Type.Literal('board'), Type.Literal('regulator'), Type.Literal('legal')])),
  },
  { $id: 'ProofCardExportRequest' },
);

async function loadCard(db: import('knex').Knex, accountId: string, cardId: string) {
  const row = await db('proof_cards').where({ id: cardId, account_id: accountId }).first();
  if (!row) throw notFound(`Proof card ${cardId}`);
  return row;
}

export const routes = [
  r.get('/v1/audit/proofCards/{cardId}', 'Fetch a proof card', {
    handler: async ({ params, principal }, deps) => ({ ok: true, proofCard: (await loadCard(deps.db, principal.accountId, params.cardId)).card }),
  }),
  r.post('/v1/audit/proofCards/{cardId}/export', 'Export a proof card as a ledger entry (service/v1 or ledger/v1), redacted for an audience', {
    body: ProofCardExport,
    handler: async ({ params, body, principal }, deps) => {
      const row = await loadCard(deps.db, principal.accountId, params.cardId);
      const card = row.card;
      const decision = row.decision;
      const rejectedPaths = body.includeRejectedPaths ? decision.rejectedPaths : [];
      const exportedAt = new Date().toISOString();
      const entry = body.format === 'ledger/v1'
        ? { format: 'ledger/v1', citeRef: card.citeRef, evidenceStatus: card.evidenceStatus, confidence: card.confidence, selectedOption: decision.selectedOption, rejectedPaths, exportedAt }
        : { format: 'service/v1', cite: card.cite, citeRef: card.citeRef, proofCard: card, decision: { route: decision.route, status: decision.status, selectedOption: decision.selectedOption, rejectedPaths, evidence: decision.evidence, counts: decision.counts }, exportedAt };
      const ledgerEntry = { ...redactFor(entry, body.audience), ...(body.audience ? { audience: body.audience, redaction: body.audience === 'legal' ? 'none (privileged)' : body.audience === 'board' ? 'summary: sources, vendors and prices removed' : 'personal data masked' } : {}), ...(body.audience === 'legal' ? { privileged: true } : {}) };
      return { ok: true, ledgerEntry };
    },
  }),
];
