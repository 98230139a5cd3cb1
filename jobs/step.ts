import type { CoreWaitKind, EvidenceItem } from '../shared/schemas/run-data.js';

export type { EvidenceItem };
import type { Deps } from '../shared/deps.js';

/**
 * The contract between the orchestrator's generic step job and each domain.
 * The job (jobs/orchestrator) loads the run, calls the domain's `StepHandler`,
 * persists the outcome to run_steps idempotently, appends run_events and hands
 * a small summary to the parent job. Domains never touch BullMQ.
 */
export interface StepInput {
  runId: string;
  accountId: string;
  domain: string;
  /** The run's segment this step runs in (a resume starts a new one). */
  segment: number;
  /** Position of the step in the run's route (0-based). */
  index: number;
  request: string;
  /** The part of the request the router chose this domain for (the whole request when it was not split). */
  clause: string;
  metadata: Record<string, unknown>;
  /** Outputs of the steps that ran before this one in the run, by domain. */
  prior: Record<string, Record<string, unknown>>;
  /** Set when the run resumes after a waitpoint aimed at this step. */
  resume?: { waitpointId: string; kind: WaitKind; action?: string; itemId?: string; data?: Record<string, unknown> };
  /** Optional request fields forwarded from the orchestrator body (country, urls, budget, ...). */
  extras: Record<string, unknown>;
  signal: AbortSignal;
  /** Emits a `domainStream` event to the run's followers. */
  emit(message: string, data?: Record<string, unknown>): Promise<void>;
}

/** A core wait kind, or a resting status the step's module declares (`statuses.resting`). */
export type WaitKind = CoreWaitKind | (string & {});

export interface StepOutcome {
  /** Becomes `results[domain]` in the run's response. */
  output: Record<string, unknown>;
  evidence: EvidenceItem[];
  /** Lines for agentConversation; the orchestrator prefixes `[domain]`. */
  conversation: string[];
  openQuestions?: string[];
  /** Options considered and not chosen (proof card export `rejectedPaths`). */
  rejected?: Array<{ option: string; reason: string }>;
  /** A final run status the step's module declares (`statuses.final`); the run ends with it instead of `ready`. */
  finalStatus?: string;
  /** When set, the run rests at a waitpoint after this step. */
  suspend?: { kind: WaitKind; payload: Record<string, unknown> };
}

export type StepHandler = (input: StepInput, deps: Deps) => Promise<StepOutcome>;
