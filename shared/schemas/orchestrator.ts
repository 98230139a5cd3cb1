import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Money, Ok, StringEnum } from './common.js';
import { ProofCard } from './proof.js';

const Str = (max = 4000) => Type.String({ maxLength: max });
export const CHANNELS = ['api', 'mcp', 'sdk', 'sandbox'] as const;
export const Channel = StringEnum(CHANNELS);
export type Channel = Static<typeof Channel>;

/**
 * Answers a waitpoint accepts. The domain modules declare them
 * (`resumeActions`, collected as RESUME_ACTIONS in jobs/domains.ts); shared/
 * cannot import jobs/, so this list repeats their names and a test keeps the two equal.
 */
export const RESUME_ACTION_NAMES = ['buy', 'contact', 'proxyOutcome'] as const;
export const ResumeAction = StringEnum(RESUME_ACTION_NAMES);
export type ResumeAction = Static<typeof ResumeAction>;

export const OrchestratorRequest = Type.Object(
  {
    request: Type.String({ minLength: 1, maxLength: 8000, description: 'Natural-language request or goal' }),
    conversationId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Groups follow-up turns; sandbox runs use a sandbox_ prefix' })),
    domainRoute: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 12, description: 'Forces a domain sequence and skips NLP routing' })),
    clientId: Type.Optional(Str(200)),
    metadata: Type.Optional(AnyObject),
    stream: Type.Optional(Type.Boolean({ description: 'true streams progress events as application/x-ndjson' })),
    action: Type.Optional(ResumeAction),
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

/** The engine's own run statuses; domain modules may add final and resting ones (jobs/orchestrator/run-state.ts). */
export const CORE_RUN_STATUSES = ['queued', 'running', 'ready', 'NEEDS_INPUT', 'awaitingProxy', 'awaitingApproval', 'failed', 'canceled'] as const;
export const RunStatus = StringEnum(CORE_RUN_STATUSES);

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

export const AUTONOMOUS_MODES = ['delivery', 'environment'] as const;
export const AutonomousRequest = Type.Object(
  { mode: Type.Optional(StringEnum(AUTONOMOUS_MODES)), autonomy: AutonomyGrant },
  { $id: 'AutonomousRequest', additionalProperties: true },
);

export const TemplateRunRequest = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 100 }),
    request: Type.Optional(Str(8000)),
    conversationId: Type.Optional(Str(200)),
    metadata: Type.Optional(AnyObject),
  },
  { $id: 'TemplateRunRequest', additionalProperties: true, description: 'Plus the template-specific fields of its input schema' },
);

/** Failure the midnight-arbitrage sandbox simulates; '' is none. */
export const CHAOS_MODES = ['', 'latency', 'modelError', 'unauthorizedSpend', 'freeze'] as const;
export const ChaosMode = StringEnum(CHAOS_MODES, { default: '' });
export type ChaosMode = Static<typeof ChaosMode>;

export const SandboxRequest = Type.Object(
  {
    chaos: ChaosMode,
  },
  { $id: 'SandboxRequest' },
);

export const BudgetUsd = Type.Object({ maxUsd: Type.Number({ minimum: 0 }) });
export { Money, ProofCard };
