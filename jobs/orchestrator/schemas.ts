import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AnyObject, HttpUrl, Ok, Page, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { Budget, Channel } from '../../shared/schemas/orchestrator.js';
import { BenchmarkHashes } from '../../shared/schemas/benchmark.js';
import { ProofCard } from './proof-schemas.js';
import { DOMAIN_NAMES, RESUME_ACTIONS } from '../../shared/domain-names.js';
import { RUN_STATUSES, WAIT_STATUSES } from './run-state.js';

/**
 * The run API's schemas whose vocabularies come from the domain modules: the
 * domain names, the actions their waitpoints accept, and the run statuses
 * (core plus the ones domains declare). They live here, beside the list they
 * are derived from, since shared/ cannot read it.
 */
export const DomainName = StringEnum(DOMAIN_NAMES, { description: 'A domain of the manifest' });
export const ResumeAction = StringEnum(RESUME_ACTIONS, {
  description: 'An answer a waitpoint accepts (each domain declares its own)',
});
export const RunStatus = StringEnum(RUN_STATUSES, {
  description: 'queued, running, then a resting status: final or waiting',
});

const Str = (max = 4000) => Type.String({ maxLength: max });

/**
 * Free-form input for the steps, each domain reading its own fields; the ones bounded for every run are checked here,
 * so a bad one is a 400 at submission rather than a failed run. Typed as a record: callers add any field.
 */
const RunMetadata = Type.Unsafe<Record<string, unknown>>(
  Type.Object({ hashes: Type.Optional(BenchmarkHashes) }, { additionalProperties: true }),
);

export const OrchestratorRequest = Type.Object(
  {
    request: Type.String({ minLength: 1, maxLength: 8000, description: 'Natural-language request or goal' }),
    conversationId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Groups follow-up turns; sandbox runs use a sandbox_ prefix',
      }),
    ),
    domainRoute: Type.Optional(
      Type.Array(DomainName, {
        minItems: 1,
        maxItems: 12,
        description: 'Forces a domain sequence and skips NLP routing',
      }),
    ),
    clientId: Type.Optional(Str(200)),
    metadata: Type.Optional(RunMetadata),
    stream: Type.Optional(Type.Boolean({ description: 'true streams progress events as application/x-ndjson' })),
    action: Type.Optional(ResumeAction),
    itemId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Candidate chosen in a NEEDS_INPUT choice response' }),
    ),
    channel: Type.Optional(Channel),
    taskId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Task the run belongs to' })),
    country: Type.Optional(Str(64)),
    urls: Type.Optional(Type.Array(HttpUrl('A page for hunt to read offers from'), { maxItems: 20 })),
    attachments: Type.Optional(
      Type.Array(Type.Object({ name: Str(300), mime: Str(200) }, { additionalProperties: true }), { maxItems: 20 }),
    ),
    marketplaces: Type.Optional(Type.Array(Str(200), { maxItems: 20 })),
    consentToCall: Type.Optional(Type.Boolean()),
  },
  { $id: 'OrchestratorRequest' },
);
export type OrchestratorRequest = Static<typeof OrchestratorRequest>;

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

/** Why a `queued` run has not started: its account's places for runs in flight are taken (admission.ts). */
export const RunHold = Type.Object(
  {
    reason: Type.String(),
    position: Type.Integer({ minimum: 1, description: "1: the next of the account's held runs to start" }),
    inFlight: Type.Integer({ minimum: 0, description: "The account's runs in flight now" }),
    inFlightLimit: Type.Integer({ minimum: 0, description: "Runs in flight the account's plan allows at once" }),
    heldAt: Timestamp,
  },
  { $id: 'RunHold' },
);

export const RunAccepted = Ok(
  {
    runId: Type.String(),
    status: RunStatus,
    hold: Type.Optional(RunHold),
    links: Type.Object({ self: Type.String(), events: Type.String(), cancel: Type.String() }),
  },
  'RunAccepted',
);

const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/** The open waitpoint of a run as GET /v1/runs/{runId} (runs.get, an A2A task's status message) shows it. */
export const RunWaitpoint = Type.Object(
  {
    waitpointId: Type.String(),
    kind: StringEnum(WAIT_STATUSES, { description: 'What the run waits for: a choice, a human (proxy), an approval' }),
    domain: Type.String({ description: 'The domain whose step waits' }),
    payload: AnyObject,
    createdAt: Timestamp,
    expiresAt: Nullable(
      Timestamp,
      'When it fails closed unanswered (the run ends `expired`); ' +
        'null: the engine does not expire it (a proxy mission expires itself)',
    ),
    escalatedAt: Nullable(
      Timestamp,
      'When it escalated (the approvers, or the submitter of a choice, were mailed); ' + 'null: not yet',
    ),
  },
  { $id: 'RunWaitpoint' },
);

/**
 * GET /v1/runs/{runId}: a domain may lift fields of its result beside these
 * (a delivery run's stages), so more may be present.
 */
export const RunDetailResponse = Ok(
  {
    run: Type.Object(
      {
        runId: Type.String(),
        status: RunStatus,
        route: Type.Array(Type.String()),
        request: Type.String(),
        segment: Type.Integer(),
        error: Type.Union([Type.String(), Type.Null()]),
        steps: Type.Array(Type.Object({}, { additionalProperties: true })),
        waitpoint: Nullable(RunWaitpoint, 'The waitpoint the run rests at; null when it does not wait'),
        hold: Nullable(RunHold, 'Why a queued run waits for a place, and its position; null when it is not held'),
        result: Type.Unknown(),
        links: Type.Object({ self: Type.String(), events: Type.String(), cancel: Type.String() }),
      },
      { additionalProperties: true },
    ),
  },
  'RunDetailResponse',
);

const RunLinks = Type.Object({ self: Type.String(), events: Type.String() }, { additionalProperties: true });

/** A run in a list (GET /v1/runs): no steps, no result. */
export const RunSummary = Type.Object(
  {
    runId: Type.String(),
    status: RunStatus,
    route: Type.Array(Type.String()),
    conversationId: Type.Union([Type.String(), Type.Null()]),
    taskId: Type.Union([Type.String(), Type.Null()]),
    proofCardId: Type.Union([Type.String(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    stuckReason: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    finishedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'RunSummary' },
);
export const RunPage = Page('runs', RunSummary, 'RunPage');

/** One SSE event of GET /v1/runs/events (its `event:` line names it; this is its `data:`). */
export const RunsStreamEvent = Type.Object(
  {
    runs: Type.Optional(Type.Array(RunSummary, { description: '`ready`: the newest runs (at most 50)' })),
    runId: Type.Optional(Type.String({ description: '`run.created`, `run.changed`' })),
    run: Type.Optional(RunSummary),
    previousStatus: Type.Optional(
      Type.Union([RunStatus, Type.Null()], { description: '`run.changed`: the status it left; null when unknown' }),
    ),
  },
  {
    $id: 'RunsStreamEvent',
    description: 'text/event-stream; events: ready, run.created, run.changed. Each frame’s data is this object',
  },
);

/** GET /v1/runs/{runId}/events with Accept: application/json: one page of the run's events. */
export const RunEventsPage = Ok(
  {
    runId: Type.String(),
    status: RunStatus,
    resting: Type.Boolean({ description: 'The run rests (waits or ended): no event comes until it moves' }),
    events: Type.Array(
      Type.Object({ id: Type.Integer(), type: Type.String(), at: Timestamp }, { additionalProperties: true }),
    ),
    nextAfter: Type.Integer({ description: 'Pass as `after` for the next page' }),
    more: Type.Boolean(),
  },
  'RunEventsPage',
);
export const RunCanceled = Ok({ runId: Type.String(), status: Type.Literal('canceled') }, 'RunCanceled');
export const RunResumed = Ok(
  { runId: Type.String(), status: RunStatus, segment: Type.Integer(), links: RunLinks },
  'RunResumed',
);

export const RunListQuery = Type.Composite(
  [
    PageQuery,
    Type.Object({
      status: Type.Optional(RunStatus),
      domain: Type.Optional(DomainName),
      conversationId: Type.Optional(Type.String({ maxLength: 200 })),
      createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
      createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
    }),
  ],
  { $id: 'RunListQuery' },
);

export const RunResume = Type.Object(
  {
    itemId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    action: Type.Optional(ResumeAction),
    approved: Type.Optional(Type.Boolean()),
    data: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'RunResumeRequest' },
);

/**
 * `runs.input`: the orchestrator body without the fields that have columns of
 * their own (request, conversation_id, task_id, channel) or matter only to the
 * HTTP answer (stream). Steps get `metadata` and the rest as `extras`; a
 * template adds its own fields (findBestFit's `budget`), and unknown body
 * fields are kept, so extra properties are allowed.
 */
export const RunInput = Type.Composite(
  [
    Type.Omit(OrchestratorRequest, ['request', 'conversationId', 'taskId', 'channel', 'stream']),
    Type.Object({ budget: Type.Optional(Budget) }),
  ],
  { $id: 'RunInput' },
);
export type RunInput = Static<typeof RunInput>;

/**
 * `waitpoints.resolution`: the answer that resolved a waitpoint. The answer's
 * `data` (or the orchestrator body's metadata) is spread into it, so any other
 * field may be present; the resumed step reads it merged over the payload.
 */
export const WaitpointResolution = Type.Object(
  {
    itemId: Type.Optional(Type.String({ minLength: 1 })),
    action: Type.Optional(ResumeAction),
    approved: Type.Optional(Type.Boolean()),
  },
  { $id: 'WaitpointResolution', additionalProperties: true },
);
export type WaitpointResolution = Static<typeof WaitpointResolution>;
