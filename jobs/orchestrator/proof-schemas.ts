import { Type, type Static } from '@sinclair/typebox';
import { Ok, StringEnum } from '../../shared/schemas/common.js';

/**
 * Proof cards and their export. The vocabularies are schemas here, the one
 * source for the card builder (jobs/orchestrator/proof.ts) and the export
 * route (api/routes/proof-cards.ts), so the API, the OpenAPI document and
 * the code cannot drift apart.
 */

export const EVIDENCE_STATUSES = ['sourceBound', 'partiallySourced', 'unverified', 'contradicted'] as const;
export const EvidenceStatus = StringEnum(EVIDENCE_STATUSES, {
  description:
    'sourceBound: every claim has a named source; partiallySourced: some do; unverified: none do; ' +
    'contradicted: sources disagree',
});
export type EvidenceStatus = Static<typeof EvidenceStatus>;

export const RESTRAINTS = ['proceedSafely', 'escalateBeforeActing'] as const;
export const Restraint = StringEnum(RESTRAINTS, {
  description:
    'escalateBeforeActing when the evidence is contradicted or unverified, confidence < 0.6, or a question is open',
});
export type Restraint = Static<typeof Restraint>;

export const ProofCard = Type.Object(
  {
    cardId: Type.String(),
    kind: Type.Literal('proofCard'),
    evidenceStatus: EvidenceStatus,
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    openQuestions: Type.Array(Type.String()),
    recommendedRestraint: Restraint,
    cite: Type.String({ description: 'awp:proofCard:<cardId>#v1' }),
    citeRef: Type.String({ description: 'awp:decisionLog:<decisionId>#v1' }),
    runId: Type.Optional(Type.String()),
    createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { $id: 'ProofCard' },
);
export type ProofCard = Static<typeof ProofCard>;

export const AUDIENCES = ['board', 'regulator', 'legal'] as const;
export const Audience = StringEnum(AUDIENCES, {
  description:
    'board: a summary without sources, vendors, item ids and prices; regulator: everything with personal ' +
    'data masked; legal: unredacted, marked privileged',
});
export type Audience = Static<typeof Audience>;

export const EXPORT_FORMATS = ['service/v1', 'ledger/v1'] as const;
export const ExportFormat = StringEnum(EXPORT_FORMATS, {
  default: 'service/v1',
  description: 'service/v1: the card and its decision log; ledger/v1: the ledger entry',
});
export type ExportFormat = Static<typeof ExportFormat>;

/** Body of POST /v1/audit/proofCards/{cardId}/export. */
export const ProofCardExport = Type.Object(
  {
    format: ExportFormat,
    includeRejectedPaths: Type.Boolean({ default: true }),
    audience: Type.Optional(Audience),
  },
  { $id: 'ProofCardExportRequest' },
);
export type ProofCardExport = Static<typeof ProofCardExport>;

export const ProofCardAnswer = Ok({ proofCard: ProofCard }, 'ProofCardAnswer');
/**
 * A ledger entry: `service/v1` carries the card and its decision, `ledger/v1` the citation fields; redacted per
 * audience.
 */
export const ProofCardExported = Ok(
  {
    ledgerEntry: Type.Object(
      {
        format: ExportFormat,
        exportedAt: Type.String({ format: 'date-time' }),
        audience: Type.Optional(Audience),
      },
      { additionalProperties: true },
    ),
  },
  'ProofCardExported',
);
