import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Money, Ok } from './common.js';

const Str = (max = 4000) => Type.String({ maxLength: max });
export const Channel = Type.Union([Type.Literal('api'), Type.Literal('mcp'), Type.Literal('sdk'), Type.Literal('sandbox')]);

export const OrchestratorRequest = Type.Object(
  {
    request: Type.String({ minLength: 1, maxLength: 8000, description: 'Natural-language request or goal' }),
    conversationId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Groups follow-up turns; sandbox runs use a sandbox_ prefix' })),
    domainRoute: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 12, description: 'Forces a domain sequence and skips NLP routing' })),
    clientId: Type.Optional(Str(200)),
    metadata: Type.Optional(AnyObject),
    stream: Type.Optional(Type.Boolean({ description: 'true streams progress events as application/x-ndjson' })),
    action: Type.Optional(Type.Union([Type.Literal('buy'), Type.Literal('contact'), Type.Literal('proxyOutcome')])),
    itemId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Candidate chosen in a NEEDS_INPUT choice response' })),
    channel: Type.Optional(Channel),
    taskId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Task the run belongs to' })),
    country: Type.Optional(Str(64)),
    urls: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 20 })),
    attachments: Type.Optional(Type.Array(Type.Object({ name: Str(300), mime: Str(200) }, { additionalProperties: true }), { maxItems: 20 })),
    marketplaces: Type.Optional(Type.Array(Str(200), { maxItems: 20 })),
    consentToCall: Type.Optional(Type.Boolean()),
  },
  { $id: 'OrchestratorRequest' },
);
export type OrchestratorRequest = Static<typeof OrchestratorRequest>;

export const EvidenceStatus = Type.Union(
  [Type.Literal('sourceBound'), Type.Literal('partiallySourced'), Type.Literal('unverified'), Type.Literal('contradicted')],
  { description: 'sourceBound: every claim has a named source; partiallySourced: some do; unverified: none do; contradicted: sources disagree' },
);

export const ProofCard = Type.Object(
  {
    cardId: Type.String(),
    kind: Type.Literal('proofCard'),
    evidenceStatus: EvidenceStatus,
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    openQuestions: Type.Array(Type.String()),
    recommendedRestraint: Type.Union([Type.Literal('proceedSafely'), Type.Literal('escalateBeforeActing')]),
    cite: Type.String({ description: 'awp:proofCard:<cardId>#v1' }),
    citeRef: Type.String({ description: 'awp:decisionLog:<decisionId>#v1' }),
    runId: Type.Optional(Type.String()),
    createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { $id: 'ProofCard' },
);

export const RunStatus = Type.Union([
  Type.Literal('queued'), Type.Literal('running'), Type.Literal('ready'), Type.Literal('NEEDS_INPUT'),
  Type.Literal('awaitingProxy'), Type.Literal('awaitingApproval'), Type.Literal('failed'), Type.Literal('canceled'),
]);

export const OrchestratorResult = Ok(
  {
    runId: Type.String(),
    status: RunStatus,
    route: Type.Array(Type.String()),
    results: Type.Record(Type.String(), Type.Unknown()),
    proofCard: Type.Union([ProofCard, Type.Null()]),
    agentConversation: Type.Array(Type.String()),
    trace: Type.Array(Type.Unknown()),
    error: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  'OrchestratorResult',
);

export const RunAccepted = Ok(
  { runId: Type.String(), status: RunStatus, links: Type.Object({ self: Type.String(), events: Type.String(), cancel: Type.String() }) },
  'RunAccepted',
);

export const AutonomyGrant = Type.Object(
  {
    enabled: Type.Boolean(),
    allowedActions: Type.Optional(Type.Array(Str(100), { maxItems: 50 })),
    allowCommands: Type.Optional(Type.Boolean({ default: false })),
    maxActions: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    dryRun: Type.Optional(Type.Boolean({ default: true })),
    workdir: Type.Optional(Str(1000)),
    requireApproval: Type.Optional(Type.Array(Str(100), { maxItems: 50 })),
  },
  { $id: 'AutonomyGrant', additionalProperties: true },
);

export const AutonomousRequest = Type.Object(
  { mode: Type.Optional(Type.Union([Type.Literal('delivery'), Type.Literal('environment')])), autonomy: AutonomyGrant },
  { $id: 'AutonomousRequest', additionalProperties: true },
);

export const TemplateRunRequest = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 100 }),
    request: Type.Optional(Str(8000)),
    conversationId: Type.Optional(Str(200)),
    metadata: Type.Optional(AnyObject),
  },
  { $id: 'TemplateRunRequest', additionalProperties: true },
);

export const SandboxRequest = Type.Object(
  {
    chaos: Type.Union(
      [Type.Literal(''), Type.Literal('latency'), Type.Literal('modelError'), Type.Literal('unauthorizedSpend'), Type.Literal('freeze')],
      { default: '' },
    ),
  },
  { $id: 'SandboxRequest' },
);

export const BudgetUsd = Type.Object({ maxUsd: Type.Number({ minimum: 0 }) });
export { Money };
