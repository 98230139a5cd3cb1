import { Type, type Static } from '@sinclair/typebox';
import { Ok, StringEnum, Timestamp } from '../../shared/schemas/common.js';

/**
 * Sealed proof packs. A pack is a run's evidence in six sections, each
 * hashed (SHA-256 over RFC 8785 canonical JSON), a root hash over the
 * header and the section hashes, and the service's Ed25519 signature over
 * the root hash. Submitted packs are typed loosely on purpose: a tampered
 * value must reach the verifier (and be reported), not be refused as a 400.
 */

export const SECTION_KINDS = [
  'evidenceMap',
  'sourceSnapshots',
  'contradictions',
  'decisionLog',
  'receipts',
  'audit',
] as const;
export const SectionKind = StringEnum(SECTION_KINDS, {
  description:
    'evidenceMap: every claim with its source and hash; sourceSnapshots: each source record (URL) the run ' +
    'read, with its hash; contradictions; decisionLog: the path taken and what was rejected; receipts; ' +
    'audit: the audit log entries about the run (approvals, denials), oldest first',
});

export const PACK_PROBLEMS = [
  'hashMismatch',
  'itemHashMismatch',
  'sectionMissing',
  'kindMismatch',
  'rootHashMismatch',
  'malformed',
  'unknownKey',
  'badSignature',
] as const;
export const PackProblemKind = StringEnum(PACK_PROBLEMS);

const Section = Type.Object({ kind: SectionKind }, { additionalProperties: true });

export const ProofPackSeal = Type.Object(
  {
    hashAlg: Type.Literal('SHA-256'),
    canonicalization: Type.Literal('RFC8785'),
    sectionHashes: Type.Array(
      Type.Object({
        kind: SectionKind,
        sha256: Type.String({ description: "Hex SHA-256 of the section's canonical JSON" }),
      }),
    ),
    rootHash: Type.String({
      description:
        'Hex SHA-256 of the canonical JSON of { header: { packId, status, cite, runId, sealedAt }, sectionHashes }',
    }),
    alg: Type.Literal('EdDSA'),
    kid: Type.String({ description: 'The signing key in /.well-known/jwks.json' }),
    signature: Type.String({ description: 'Base64url Ed25519 signature over the UTF-8 bytes of rootHash' }),
  },
  { $id: 'ProofPackSeal' },
);

export const ProofPack = Type.Object(
  {
    packId: Type.String(),
    status: Type.Literal('sealed'),
    cite: Type.String({ description: 'awp:proofPack:<packId>#v1' }),
    runId: Type.String(),
    sealedAt: Timestamp,
    sections: Type.Array(Section, { description: `In this order: ${SECTION_KINDS.join(', ')}` }),
    seal: ProofPackSeal,
    shareUrl: Type.String({ description: 'Where the pack lives (GET); not part of the seal' }),
  },
  { $id: 'ProofPack' },
);

export const ProofPackReply = Ok({ pack: ProofPack }, 'ProofPackReply');

export const ProofPackCreate = Type.Object(
  { runId: Type.String({ minLength: 1, maxLength: 200 }) },
  { $id: 'ProofPackCreate', additionalProperties: true },
);

/**
 * A pack as submitted for checking: only its outline is typed, so changed values are reported by the verifier rather
 * than refused.
 */
export const ProofPackVerify = Type.Object(
  {
    pack: Type.Object(
      {
        packId: Type.String({ maxLength: 200 }),
        sections: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 20 }),
        seal: Type.Object({}, { additionalProperties: true }),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'ProofPackVerifyRequest' },
);
export type ProofPackVerify = Static<typeof ProofPackVerify>;

export const ProofPackVerification = Ok(
  {
    valid: Type.Boolean(),
    packId: Type.Union([Type.String(), Type.Null()]),
    rootHash: Type.Object({ computed: Type.String(), sealed: Type.Union([Type.String(), Type.Null()]) }),
    signature: Type.Object({
      kid: Type.Union([Type.String(), Type.Null()]),
      keyPublished: Type.Boolean(),
      valid: Type.Boolean(),
    }),
    invalidSections: Type.Array(Type.String(), {
      description: 'Section kinds, `header` or `seal`, each with a problem',
    }),
    problems: Type.Array(Type.Object({ section: Type.String(), problem: PackProblemKind, detail: Type.String() })),
  },
  'ProofPackVerification',
);
