import { Type, type TSchema } from '@sinclair/typebox';
import type { OrchestratorRequest } from '../../shared/schemas/orchestrator.js';

export interface WorkflowTemplate {
  templateId: string;
  domains: string[];
  description: string;
  input: TSchema;
  /** The orchestrator request this template runs for a given input. */
  toRequest(input: Record<string, unknown>): OrchestratorRequest;
}

const Docs = Type.Optional(Type.Array(Type.String({ maxLength: 100_000 }), { maxItems: 50 }));
const str = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v : fallback);

export const TEMPLATES: WorkflowTemplate[] = [
  {
    templateId: 'vendorDueDiligence',
    domains: ['resolve'],
    description: 'Check a vendor\'s documents for scam signals, contradicted figures and unmet policy rules',
    input: Type.Object({ vendorName: Type.String({ minLength: 1, maxLength: 200 }), documents: Docs, policyRules: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 50 })) }, { $id: 'VendorDueDiligenceInput', additionalProperties: true }),
    toRequest: (i) => ({ request: str(i.request, `Due diligence on vendor ${i.vendorName}: verify their claims`), domainRoute: ['resolve'], metadata: { ...(i.metadata as object), vendorName: i.vendorName, documents: i.documents ?? [], policyRules: i.policyRules ?? [] } }),
  },
  {
    templateId: 'auditDisputedClaim',
    domains: ['resolve'],
    description: 'Map the evidence for a disputed claim and find contradictions with the documents',
    input: Type.Object({ claim: Type.String({ minLength: 1, maxLength: 20_000 }), documents: Docs }, { $id: 'AuditDisputedClaimInput', additionalProperties: true }),
    toRequest: (i) => ({ request: str(i.claim, str(i.request, 'audit the claim')), domainRoute: ['resolve'], metadata: { ...(i.metadata as object), documents: i.documents ?? [] } }),
  },
  {
    templateId: 'findBestFit',
    domains: ['hunt', 'resolve'],
    description: 'Find candidates in the catalog within a budget, then audit them for contradictions and hidden fees',
    input: Type.Object({ request: Type.String({ minLength: 1, maxLength: 4000 }), budget: Type.Optional(Type.Object({ maxUsd: Type.Number({ minimum: 0 }) })) }, { $id: 'FindBestFitInput', additionalProperties: true }),
    toRequest: (i) => ({ request: str(i.request, 'find the best fit'), domainRoute: ['hunt', 'resolve'], metadata: (i.metadata as Record<string, unknown>) ?? {}, ...(i.budget ? { budget: i.budget } : {}) } as OrchestratorRequest),
  },
  {
    templateId: 'coordinateHumanProcess',
    domains: ['proxy'],
    description: 'Hand a step to a human through a proxy mission and resume with the outcome',
    input: Type.Object({ request: Type.String({ minLength: 1, maxLength: 4000 }) }, { $id: 'CoordinateHumanProcessInput', additionalProperties: true }),
    toRequest: (i) => ({ request: str(i.request, 'coordinate a human step'), domainRoute: ['proxy'], metadata: (i.metadata as Record<string, unknown>) ?? {} }),
  },
];
