import { Type, type Static } from '@sinclair/typebox';
import { Choice } from './hunt.js';

/**
 * What the engine stores and reads back (jsonb columns, BullMQ job data):
 * written by one process, read by another, maybe after a deploy. Read them
 * with `readAs` (shared/validation.ts) so a shape that drifted fails the step
 * with the field that is wrong, instead of failing somewhere later on
 * `undefined`. None of these forbids extra fields: rows written by a newer
 * version must stay readable by an older one during a rolling deploy.
 */

/** One claim of a step and where it comes from; the proof card is computed from these. */
export const EvidenceItem = Type.Object(
  {
    claim: Type.String(),
    source: Type.Union([Type.String(), Type.Null()]),
    sourceBound: Type.Boolean({ description: 'True when the claim is backed by a named, retrievable source' }),
    contradicts: Type.Optional(
      Type.Array(Type.String(), {
        description: 'What the claim conflicts with; any entry makes the evidence contradicted',
      }),
    ),
  },
  { $id: 'EvidenceItem' },
);
export type EvidenceItem = Static<typeof EvidenceItem>;

/** An option a step considered and did not choose (the export's `rejectedPaths`). */
export const RejectedOption = Type.Object({ option: Type.String(), reason: Type.String() }, { $id: 'RejectedOption' });
export type RejectedOption = Static<typeof RejectedOption>;

/** `run_steps.output`: becomes `results[domain]`; each domain has its own fields. */
export const StepOutput = Type.Object(
  {
    selected: Type.Optional(
      Type.Unknown({
        description: "The option the step settled on; the first one in route order is the decision's selectedOption",
      }),
    ),
  },
  { $id: 'StepOutput', additionalProperties: true },
);
export type StepOutput = Static<typeof StepOutput>;

/** `run_steps.evidence`. */
export const StepEvidence = Type.Array(EvidenceItem, { $id: 'StepEvidence' });
export type StepEvidence = Static<typeof StepEvidence>;

/** `run_steps.conversation`: lines for agentConversation, without the `[domain]` prefix. */
export const StepConversation = Type.Array(Type.String(), { $id: 'StepConversation' });

/** `run_steps.extra`: the step's doubts, written with every completed step (empty lists when it has none). */
export const StepExtra = Type.Object(
  {
    openQuestions: Type.Array(Type.String()),
    rejected: Type.Array(RejectedOption),
    finalStatus: Type.Optional(Type.String({ description: "A final run status the step's domain declares" })),
  },
  { $id: 'StepExtra' },
);
export type StepExtra = Static<typeof StepExtra>;

/** `proof_cards.decision`: the decision log a proof card cites (`citeRef`) and the export reads. */
export const DecisionLog = Type.Object(
  {
    decisionId: Type.String(),
    route: Type.Array(Type.String()),
    status: Type.String({ description: 'Run status the card was made at' }),
    selectedOption: Type.Unknown(),
    rejectedPaths: Type.Array(Type.Composite([Type.Object({ domain: Type.String() }), RejectedOption])),
    evidence: Type.Array(Type.Composite([Type.Object({ domain: Type.String() }), EvidenceItem])),
    counts: Type.Object({
      evidence: Type.Integer({ minimum: 0 }),
      sourceBound: Type.Integer({ minimum: 0 }),
      contradictions: Type.Integer({ minimum: 0 }),
    }),
  },
  { $id: 'DecisionLog' },
);
export type DecisionLog = Static<typeof DecisionLog>;

/** Waitpoint kinds every domain may rest at (a choice, a human, an approval); domain modules may declare more. */
export const CORE_WAIT_KINDS = ['NEEDS_INPUT', 'awaitingProxy', 'awaitingApproval'] as const;
export type CoreWaitKind = (typeof CORE_WAIT_KINDS)[number];

const Index = Type.Integer({ minimum: 0 });

/**
 * The W3C `traceparent` of the span that enqueued the job (shared/telemetry), so its steps join the trace of the
 * request or step that led to them, in whichever process runs them. Absent while tracing is off; never part of the
 * job id.
 */
const TraceParent = Type.String({ maxLength: 128, description: 'W3C traceparent of the enqueuing span' });

/** BullMQ data of a domain step job (jobs/orchestrator/flow.ts); the job id is derived from it. */
export const StepJobData = Type.Object(
  {
    runId: Type.String({ minLength: 1 }),
    segment: Index,
    index: Type.Integer({ minimum: 0, description: "Position of the step in the run's route" }),
    domain: Type.String({ minLength: 1 }),
    resumeWaitpointId: Type.Optional(
      Type.String({ minLength: 1, description: 'Set on the first step of a segment that resumes a waitpoint' }),
    ),
    first: Type.Optional(
      Type.Boolean({
        description: 'The segment starts with this step (no earlier step of the segment must have completed)',
      }),
    ),
    drive: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Set when the clock re-drove the segment; part of the job id only' }),
    ),
    traceparent: Type.Optional(TraceParent),
    finalizes: Type.Optional(
      Type.Boolean({
        description:
          'Written by versions that ran a segment as a flow (its last step); ignored: a step job now knows its ' +
          "segment's last step from the run's route",
      }),
    ),
  },
  { $id: 'StepJobData' },
);
export type StepJobData = Static<typeof StepJobData>;

/**
 * BullMQ data of the `orchestrator.finalize` job: a segment finalized on its own (the stuck-run sweep ended the run).
 */
export const FinalizeJobData = Type.Object(
  {
    runId: Type.String({ minLength: 1 }),
    segment: Index,
    drive: Type.Optional(Type.Integer({ minimum: 1 })),
    traceparent: Type.Optional(TraceParent),
  },
  { $id: 'FinalizeJobData' },
);
export type FinalizeJobData = Static<typeof FinalizeJobData>;

/** `waitpoints.payload` of a NEEDS_INPUT choice: the options offered, answered with one's itemId. */
export const ChoiceWaitpointPayload = Type.Object(
  { choices: Type.Array(Choice, { minItems: 1 }), intent: Type.Optional(Type.String()) },
  { $id: 'ChoiceWaitpointPayload', additionalProperties: true },
);
export type ChoiceWaitpointPayload = Static<typeof ChoiceWaitpointPayload>;
