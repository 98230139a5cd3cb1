import { Type } from '@sinclair/typebox';
import { metadataOf, TemplateDocs, textOr, type WorkflowTemplate } from '../workflows/index.js';

export const templates: WorkflowTemplate[] = [
  {
    templateId: 'vendorDueDiligence',
    domains: ['resolve'],
    description: "Check a vendor's documents for scam signals, contradicted figures and unmet policy rules",
    input: Type.Object(
      {
        vendorName: Type.String({ minLength: 1, maxLength: 200 }),
        documents: TemplateDocs,
        policyRules: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 50 })),
      },
      { $id: 'VendorDueDiligenceInput', additionalProperties: true },
    ),
    toRequest: (i) => ({
      request: textOr(i.request, `Due diligence on vendor ${i.vendorName}: verify their claims`),
      domainRoute: ['resolve'],
      metadata: {
        ...metadataOf(i),
        vendorName: i.vendorName,
        documents: i.documents ?? [],
        policyRules: i.policyRules ?? [],
      },
    }),
  },
  {
    templateId: 'auditDisputedClaim',
    domains: ['resolve'],
    description: 'Map the evidence for a disputed claim and find contradictions with the documents',
    input: Type.Object(
      { claim: Type.String({ minLength: 1, maxLength: 20_000 }), documents: TemplateDocs },
      { $id: 'AuditDisputedClaimInput', additionalProperties: true },
    ),
    toRequest: (i) => ({
      request: textOr(i.claim, textOr(i.request, 'audit the claim')),
      domainRoute: ['resolve'],
      metadata: { ...metadataOf(i), documents: i.documents ?? [] },
    }),
  },
];
