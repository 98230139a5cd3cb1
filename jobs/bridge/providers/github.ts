/**
 * GitHub Actions (issue 33), through `@octokit/rest` (github-client.ts): `ci.trigger` is a `workflow_dispatch` with
 * inputs, `ci.rerun` re-runs a run's failed jobs; delivery follows the run it started (`workflowRunNow`) and cicd reads
 * gates from the commit (`commitGates`).
 *
 * Finding the run a dispatch started: GitHub answers a dispatch 204 with no id. The dispatch sends one more input,
 * the correlation id (`awp_run` unless the action names another, set to the action's id), and the workflow is expected
 * to put it in its `run-name` (`run-name: deploy ${{ inputs.version }} [${{ inputs.awp_run }}]`), which GitHub shows
 * as the run's `display_title`. A run is the dispatch's when it is a `workflow_dispatch` run of that workflow on that
 * ref, created at most a minute before the dispatch (clock skew) and its title holds the id. A workflow without such
 * a `run-name` is matched by the window alone (created from five seconds before the dispatch on), and only when
 * exactly one run is in it: `matchedBy` says which. A dispatch retried after an answer was lost first looks for a run
 * carrying its id, so it starts no second run once GitHub has made the first.
 */
import type { Octokit } from '@octokit/rest';
import type { ProviderAdapter, ProviderCallContext, ProviderResult } from './adapter.js';
import { githubFailure, githubToken, limited, octokitFor } from './github-client.js';

type ProviderError = NonNullable<ProviderResult['error']>;
/** The input a workflow declares for the correlation id, unless the action names another. */
export const CORRELATION_INPUT = 'awp_run';
const SKEW_MS = 60_000;
/** How far back a retried dispatch looks for the run its first attempt started (the id is unique: no risk). */
const RETRY_LOOKBACK_MS = 24 * 3_600_000;
const WINDOW_MS = 5_000;
/** Failed jobs read with their log, and the size of each excerpt: what a run's answer can hold. */
const MAX_FAILED_JOBS = 3;
const MAX_EXCERPT_CHARS = 1_500;
const EXCERPT_LINES = 12;

export interface Repo {
  owner: string;
  repo: string;
}
export interface Dispatch extends Repo {
  workflow: string;
  ref: string;
  inputs: Record<string, string>;
  correlationId: string;
  correlationInput: string;
}
export interface FailedJob {
  id: number;
  name: string;
  conclusion: string | null;
  failedSteps: string[];
  htmlUrl: string | null;
  logExcerpt: string | null;
}
export interface WorkflowRunState {
  runId: number;
  status: string;
  conclusion: string | null;
  attempt: number;
  htmlUrl: string;
  headSha: string;
  failedJobs: FailedJob[];
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/** Reads `repo` as `owner/name` (or separate owner and repo) and checks both as GitHub names. */
export function repoOf(input: Record<string, unknown>): Repo {
  const [owner, repo] =
    typeof input.owner === 'string' ? [input.owner, input.repo] : String(input.repo ?? '').split('/', 2);
  if (typeof owner !== 'string' || typeof repo !== 'string' || !NAME.test(owner) || !NAME.test(repo))
    throw new TypeError('repo is owner/name (GitHub names: letters, digits, "-", "_", ".")');
  return { owner, repo };
}

/** A `ci.trigger` input checked: repo, workflow (file name or id), ref, string inputs (GitHub takes ten at most). */
export function dispatchOf(input: Record<string, unknown>, idempotencyKey: string): Dispatch {
  const { owner, repo } = repoOf(input);
  const workflow = input.workflow;
  if (typeof workflow !== 'string' || !/^([A-Za-z0-9_.-]+\.ya?ml|\d+)$/.test(workflow))
    throw new TypeError('workflow is a workflow file name (deploy.yml) or id');
  const ref = input.ref;
  if (typeof ref !== 'string' || !ref.trim() || ref.length > 255) throw new TypeError('ref is a branch or tag');
  const correlationInput = typeof input.correlationInput === 'string' ? input.correlationInput : CORRELATION_INPUT;
  if (!/^[A-Za-z_][A-Za-z0-9_-]{0,99}$/.test(correlationInput)) throw new TypeError('correlationInput is a name');
  const given = (input.inputs ?? {}) as Record<string, unknown>;
  if (typeof given !== 'object' || Array.isArray(given)) throw new TypeError('inputs is an object of strings');
  const inputs: Record<string, string> = {};
  for (const [k, v] of Object.entries(given)) {
    if (v === undefined || v === null) continue;
    if (typeof v === 'object') throw new TypeError(`inputs.${k} is a string, number or boolean`);
    inputs[k] = String(v);
  }
  const correlationId = typeof input.correlationId === 'string' ? input.correlationId : idempotencyKey;
  inputs[correlationInput] = correlationId;
  if (Object.keys(inputs).length > 10) throw new TypeError('GitHub takes at most 10 inputs, the correlation id with');
  return { owner, repo, workflow, ref, inputs, correlationId, correlationInput };
}

/** A client for the connector with its token (or an App installation token made from its key). */
export async function githubClient(ctx: Pick<ProviderCallContext, 'connector' | 'secret' | 'deps'>): Promise<Octokit> {
  if (!ctx.secret) throw new TypeError('github: the connector has no credential (a token or a GitHub App key)');
  const allowPrivate = ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS;
  const token = await githubToken(ctx.connector.endpoint, ctx.secret, allowPrivate);
  return octokitFor(ctx.connector.endpoint, token, allowPrivate);
}

/** The run a dispatch started, as the header explains; null while GitHub has not made it (or cannot tell which). */
export async function findDispatchedRun(
  client: Octokit,
  d: Pick<Dispatch, 'owner' | 'repo' | 'workflow' | 'ref' | 'correlationId'> & { dispatchedAt: number },
  opts: { byTitleOnly?: boolean } = {},
): Promise<{ runId: number; htmlUrl: string; matchedBy: 'correlation' | 'window' } | null> {
  // Newest first; GitHub's `created` filter takes search syntax (`>=…`) where its description declares a date-time,
  // so the window is applied here, on the first page (a dispatch's run is among the newest fifty).
  const since = d.dispatchedAt - (opts.byTitleOnly ? RETRY_LOOKBACK_MS : SKEW_MS);
  const { data } = await limited(() =>
    client.rest.actions.listWorkflowRuns({
      owner: d.owner,
      repo: d.repo,
      workflow_id: /^\d+$/.test(d.workflow) ? Number(d.workflow) : d.workflow,
      event: 'workflow_dispatch',
      branch: d.ref,
      per_page: 50,
    }),
  );
  const runs = data.workflow_runs.filter((r) => r.event === 'workflow_dispatch' && Date.parse(r.created_at) >= since);
  const titled = runs.filter((r) => (r.display_title ?? '').includes(d.correlationId));
  const pick = (r: (typeof runs)[number], matchedBy: 'correlation' | 'window') => ({
    runId: r.id,
    htmlUrl: r.html_url,
    matchedBy,
  });
  if (titled.length) return pick(titled.sort((a, b) => b.id - a.id)[0]!, 'correlation');
  if (opts.byTitleOnly) return null;
  const inWindow = runs.filter((r) => Date.parse(r.created_at) >= d.dispatchedAt - WINDOW_MS);
  return inWindow.length === 1 ? pick(inWindow[0]!, 'window') : null;
}

async function dispatch(input: Record<string, unknown>, ctx: ProviderCallContext): Promise<ProviderResult> {
  let d: Dispatch;
  try {
    d = dispatchOf(input, ctx.idempotencyKey);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return {
      status: 'failed',
      providerRef: null,
      answer: {},
      error: { code: 'invalidInput', message: err.message, transient: false },
    };
  }
  const client = await githubClient(ctx);
  const dispatchedAt = Date.now();
  const describe = (found: Awaited<ReturnType<typeof findDispatchedRun>>, at: number, again: boolean) => ({
    status: 'succeeded' as const,
    providerRef: found ? `${d.owner}/${d.repo}/actions/runs/${found.runId}` : null,
    answer: {
      owner: d.owner,
      repo: d.repo,
      workflow: d.workflow,
      ref: d.ref,
      correlationId: d.correlationId,
      dispatchedAt: new Date(at).toISOString(),
      runId: found?.runId ?? null,
      htmlUrl: found?.htmlUrl ?? null,
      matchedBy: found?.matchedBy ?? null,
      ...(again ? { note: 'a run carrying the correlation id was there already: not dispatched again' } : {}),
    },
  });
  // A retry of this action (its answer lost) finds the run the first attempt started, by its id in the title.
  const earlier = await findDispatchedRun(client, { ...d, dispatchedAt }, { byTitleOnly: true });
  if (earlier) return describe(earlier, dispatchedAt, true);
  const at = Date.now();
  await limited(() =>
    client.rest.actions.createWorkflowDispatch({
      owner: d.owner,
      repo: d.repo,
      workflow_id: /^\d+$/.test(d.workflow) ? Number(d.workflow) : d.workflow,
      ref: d.ref,
      inputs: d.inputs,
    }),
  );
  // GitHub usually has the run listed within a second or two; when not yet, the follower finds it.
  return describe(await findDispatchedRun(client, { ...d, dispatchedAt: at }), at, false);
}

/** The lines of a job's log worth showing: its error lines with the line before, else its last lines; bounded. */
export function logExcerpt(log: string): string {
  const lines = log
    .split(/\r?\n/)
    .map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z ?/, ''))
    .filter((l) => l.trim());
  const marked = lines.flatMap((l, i) =>
    /##\[error\]|\berror\b|\bfailed\b|\bFAIL\b|exception|exit code [1-9]/i.test(l) ? [i] : [],
  );
  const picked = marked.length
    ? [...new Set(marked.flatMap((i) => [i - 1, i]).filter((i) => i >= 0))].slice(-EXCERPT_LINES).map((i) => lines[i]!)
    : lines.slice(-EXCERPT_LINES);
  const text = picked.join('\n');
  return text.length > MAX_EXCERPT_CHARS ? `…${text.slice(-MAX_EXCERPT_CHARS)}` : text;
}

/** A workflow run as it is now: status and conclusion, and when it failed, its failed jobs with log excerpts. */
export async function workflowRunNow(
  ctx: Pick<ProviderCallContext, 'connector' | 'secret' | 'deps'>,
  target: Repo & { runId: number },
): Promise<WorkflowRunState | { error: ProviderError }> {
  try {
    const client = await githubClient(ctx);
    const { owner, repo, runId } = target;
    const { data: run } = await limited(() => client.rest.actions.getWorkflowRun({ owner, repo, run_id: runId }));
    const state: WorkflowRunState = {
      runId: run.id,
      status: run.status ?? 'queued',
      conclusion: run.conclusion ?? null,
      attempt: run.run_attempt ?? 1,
      htmlUrl: run.html_url,
      headSha: run.head_sha,
      failedJobs: [],
    };
    if (state.status !== 'completed' || state.conclusion === 'success') return state;
    const { data: jobs } = await limited(() =>
      client.rest.actions.listJobsForWorkflowRun({ owner, repo, run_id: runId, filter: 'latest', per_page: 100 }),
    );
    const failed = jobs.jobs.filter((j) => j.conclusion && !['success', 'skipped', 'neutral'].includes(j.conclusion));
    for (const job of failed.slice(0, MAX_FAILED_JOBS)) {
      let logText: string | null = null;
      try {
        const got = await limited(() =>
          client.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: job.id }),
        );
        logText = typeof got.data === 'string' ? got.data : null;
      } catch {
        // Logs expire, or their blob host is out of reach: the job still counts as failed, without its excerpt.
      }
      state.failedJobs.push({
        id: job.id,
        name: job.name,
        conclusion: job.conclusion ?? null,
        failedSteps: (job.steps ?? []).filter((s) => s.conclusion === 'failure').map((s) => s.name),
        htmlUrl: job.html_url ?? null,
        logExcerpt: logText === null ? null : logExcerpt(logText),
      });
    }
    return state;
  } catch (err) {
    return { error: githubFailure(err) };
  }
}

/** Checks, commit statuses and (given a pull request) reviews of a commit: what cicd's gates are judged from. */
export async function commitGates(
  ctx: Pick<ProviderCallContext, 'connector' | 'secret' | 'deps'>,
  target: Repo & { ref: string; pullNumber?: number },
): Promise<
  | {
      sha: string | null;
      checks: Array<{ name: string; status: string; conclusion: string | null }>;
      statuses: Array<{ context: string; state: string }>;
      reviews: Array<{ user: string; state: string; submittedAt: string | null }> | null;
    }
  | { error: ProviderError }
> {
  try {
    const client = await githubClient(ctx);
    const { owner, repo, ref } = target;
    const { data: checks } = await limited(() =>
      client.rest.checks.listForRef({ owner, repo, ref, filter: 'latest', per_page: 100 }),
    );
    const { data: combined } = await limited(() =>
      client.rest.repos.getCombinedStatusForRef({ owner, repo, ref, per_page: 100 }),
    );
    const reviews = target.pullNumber
      ? (
          await limited(() =>
            client.rest.pulls.listReviews({ owner, repo, pull_number: target.pullNumber!, per_page: 100 }),
          )
        ).data.map((r) => ({ user: r.user?.login ?? '', state: r.state, submittedAt: r.submitted_at ?? null }))
      : null;
    return {
      sha: combined.sha ?? null,
      checks: checks.check_runs.map((c) => ({ name: c.name, status: c.status, conclusion: c.conclusion ?? null })),
      statuses: combined.statuses.map((s) => ({ context: s.context, state: s.state })),
      reviews,
    };
  } catch (err) {
    return { error: githubFailure(err) };
  }
}

async function rerunFailed(input: Record<string, unknown>, ctx: ProviderCallContext): Promise<ProviderResult> {
  let target: Repo & { runId: number };
  try {
    const runId = Number(input.runId);
    if (!Number.isSafeInteger(runId) || runId <= 0) throw new TypeError('runId is a workflow run id');
    target = { ...repoOf(input), runId };
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return {
      status: 'failed',
      providerRef: null,
      answer: {},
      error: { code: 'invalidInput', message: err.message, transient: false },
    };
  }
  const client = await githubClient(ctx);
  await limited(() =>
    client.rest.actions.reRunWorkflowFailedJobs({ owner: target.owner, repo: target.repo, run_id: target.runId }),
  );
  return {
    status: 'succeeded',
    providerRef: `${target.owner}/${target.repo}/actions/runs/${target.runId}`,
    answer: { owner: target.owner, repo: target.repo, runId: target.runId, rerun: 'failedJobs' },
  };
}

export const githubAdapter: ProviderAdapter = {
  kind: 'github',
  capabilities: ['ci.trigger', 'ci.rerun'],
  async call(capability, input, ctx) {
    try {
      if (capability === 'ci.trigger') return await dispatch(input, ctx);
      if (capability === 'ci.rerun') return await rerunFailed(input, ctx);
      throw new TypeError(`github does not do ${capability}`);
    } catch (err) {
      if (err instanceof TypeError && /does not do|no credential/.test(err.message)) throw err;
      return { status: 'failed', providerRef: null, answer: {}, error: githubFailure(err) };
    }
  },
};
