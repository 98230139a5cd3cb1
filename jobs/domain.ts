import type { TSchema } from '@sinclair/typebox';
import type { Job } from 'bullmq';
import type { RunRow } from '../shared/db/runs.js';
import type { Db } from '../shared/db/knex.js';
import type { Deps } from '../shared/deps.js';
import type { AnyRoute } from '../shared/http/route-spec.js';
import type { Principal } from '../shared/schemas/auth.js';
import type { StepHandler } from './step.js';

/**
 * The orchestrator request a template runs: a request with its domain route forced, plus the other body fields it sets.
 */
export type TemplateRequest = { request: string; domainRoute: string[]; metadata: Record<string, unknown> } & Record<
  string,
  unknown
>;

/** A named, schema-checked recipe for a run; each belongs to the domain module that owns its first step. */
export interface WorkflowTemplate {
  templateId: string;
  domains: string[];
  description: string;
  /** TypeBox schema (with $id, listed in /v1/schemas) of the template's input. */
  input: TSchema;
  toRequest(input: Record<string, unknown>): TemplateRequest;
}

/** A queue's processor: gets the job and the process's deps; returns the job's (small) result. */
export type Processor = (job: Job, deps: Deps) => Promise<unknown>;

/** What the deterministic router learns about a domain (jobs/orchestrator/route.ts). */
export interface DomainVocabulary {
  /**
   * The domain's keyword rule: phrases that name it outright. It decides a
   * part of a request only when it is unambiguous: no other domain's rule
   * matches the part, and the classifier does not clearly prefer another
   * domain (its odds are multiplied by KEYWORD_ODDS in route.ts, not forced).
   */
  lexicon: RegExp;
  /**
   * Labelled requests the classifier trains on; add one when a real request is routed wrong. The labelled requests of
   * test/fixtures/route-table.json measure it and must not be among them.
   */
  examples: string[];
}

/** A client's answer to a run's waitpoint (POST /v1/runs/{runId}/resume, or a follow-up turn). */
export interface RunAnswer {
  itemId?: string;
  action?: string;
  approved?: boolean;
  data?: Record<string, unknown>;
  /** The waitpoint the answer is meant for (the inbox names it): another one open by then is 409, not answered. */
  waitpointId?: string;
}

/** An answer a waitpoint of this domain accepts (`action` of a follow-up or of POST /v1/runs/{runId}/resume). */
export interface ResumeAction {
  description: string;
  /**
   * What the answer carries besides the action, as a JSON Schema of the answer's `data` (pay's `settle`: an optional
   * mandateId). The inbox builds each item's answer form from these (jobs/inbox/answer-schema.ts); absent: nothing.
   */
  input?: TSchema;
  /** The answer names one of the waitpoint's `choices` by its `itemId` (hunt's buy, contact). */
  choosesItem?: boolean;
  /** Domain the run continues into after the waiting step when its route does not go there already (`buy` → pay). */
  continueInto?: string;
  /**
   * Set when the domain resolves its waitpoints itself, from a record of its
   * own (proxy: the mission's outcome resolves the mission and the waitpoint
   * in one transaction). A resume of such a waitpoint, with this action or
   * none, is handed to it; it returns the run as queued for its next segment.
   */
  answer?: (deps: Deps, principal: Principal, runId: string, answer: RunAnswer) => Promise<RunRow>;
}

/** A periodic job of a domain, run by the clock like the service's own sweeps (jobs/clock/sweeps.ts). */
export interface DomainSweep {
  /** node-cron expression. */
  cron: string;
  run: (deps: Deps) => Promise<unknown>;
}

/**
 * An event type the domain writes to the outbox, with the schema of its
 * payload. jobs/events/registry.ts lists it with the engine's own types: it
 * becomes a webhook in the OpenAPI document and its payload a schema in
 * /v1/schemas (under the payload's `$id`, derived from the type when absent).
 */
export interface DomainEvent {
  /** What happened, for subscribers (the webhook's description). */
  description: string;
  payload: TSchema;
}

/**
 * Everything the engine, the router and the API know about one domain. Each
 * domain folder exports one of these from its module.ts, and `jobs/domains.ts`
 * lists them. The entry points build the module registry from that list
 * (jobs/module-registry.ts) and hand it to the engine, which imports no module.
 */
export interface DomainModule<N extends string = string> {
  /** Also the name of its BullMQ queue. */
  name: N;
  summary: string;
  /**
   * Set while the domain is not built: its routes answer 501 naming the issue, and the router refuses routes through
   * it.
   */
  pendingIssue?: number;
  /** Default read and write scopes of its routes. */
  scopes: { read: string[]; write: string[] };
  routes: AnyRoute[];
  /** Runs the domain's step of an orchestrator run; absent while pending. */
  step?: StepHandler;
  vocabulary: DomainVocabulary;
  /**
   * False for a domain only a `domainRoute` reaches (benchmark): the router and the LLM router never pick it, and its
   * vocabulary trains nothing.
   */
  routable?: boolean;
  resumeActions?: Record<string, ResumeAction>;
  /**
   * Run statuses of its own: `resting` ones a step may suspend with (besides
   * NEEDS_INPUT, awaitingProxy, awaitingApproval), `final` ones a step may end
   * the run with, each counted as a success or a failure for tasks and `run.*` events.
   */
  statuses?: { resting?: string[]; final?: Record<string, 'succeeded' | 'failed'> };
  events?: Record<string, DomainEvent>;
  /** Sweeps the clock runs for the domain, by name (`proxy.expire`). */
  sweeps?: Record<string, DomainSweep>;
  /**
   * Fields a run through this domain shows at the top of GET /v1/runs/{runId}, read from the rested result's `results`
   * (delivery: stages, handoff).
   */
  runView?: (results: Record<string, unknown>) => Record<string, unknown>;
  /** Output keys hidden from the `board` audience of a proof export. */
  redact?: string[];
  templates?: WorkflowTemplate[];
  /**
   * Queues the module serves itself, by queue name (bridge: provider actions); the name must be in shared/queues.ts.
   */
  queues?: Record<string, Processor>;
  /**
   * Runs inside the transaction that ends a run whose route went through
   * this domain (any final status): what must commit together with the
   * run's end. pay seals the run's proof pack here when it settled anything.
   */
  onRunFinished?: (
    trx: Db,
    deps: Pick<Deps, 'config'>,
    run: { runId: string; accountId: string; status: string },
  ) => Promise<void>;
}

/** Identity helper that keeps the module's name a literal type. */
export function defineDomain<const N extends string>(module: DomainModule<N>): DomainModule<N> {
  return module;
}
