import { ProofCardAnswer, ProofCardExport, ProofCardExported } from './proof-schemas.js';
import { exportProofCard, loadProofCard } from './proof-export.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('audit', { read: ['audit:read'], write: ['audit:read'] });

export const routes = [
  r.get('/v1/audit/proofCards/{cardId}', 'Fetch a proof card', {
    response: { 200: ProofCardAnswer },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      proofCard: (await loadProofCard(deps, principal.accountId, params.cardId)).card,
    }),
  }),
  r.post(
    '/v1/audit/proofCards/{cardId}/export',
    'Export a proof card as a ledger entry (service/v1 or ledger/v1), redacted for an audience',
    {
      body: ProofCardExport,
      response: { 200: ProofCardExported },
      handler: async ({ params, body, principal }, deps) => ({
        ok: true,
        ledgerEntry: await exportProofCard(deps, principal.accountId, params.cardId, body),
      }),
    },
  ),
];
