/**
 * GitHub Actions (issue 33), through `@octokit/rest` (github-client.ts): `ci.trigger` is a `workflow_dispatch` with
 * inputs, `ci.rerun` re-runs a run's failed jobs; delivery follows the run it started (`workflowRunNow`, github-run.ts)
 * and cicd reads gates from the commit (`commitGates`, github-gates.ts).
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
import { invalidInput, type ProviderAdapter, type ProviderCallContext, type ProviderResult } from './adapter.js';
import { githubClient, githubFailure, limited } from './github-client.js';

/** The input a workflow declares for the correlation id, unless the action names another. */
export const CORRELATION_INPUT = 'awp_run';
const SKEW_MS = 60_000;
/** How far back a retried dispatch looks for the run its first attempt started (the id is unique: no risk). */
const RETRY_LOOKBACK_MS = 24 * 3_600_000;
const WINDOW_MS = 5_000;

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

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** A workflow is named by its file name or its numeric id: octokit sends either in the path. */
const workflowId = (workflow: string) => (/^\d+$/.test(workflow) ? Number(workflow) : workflow);
/** What a run is known by in an action's answer (`providerRef`). */
const runRef = (r: Repo, runId: number) => `${r.owner}/${r.repo}/actions/runs/${runId}`;

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
      workflow_id: workflowId(d.workflow),
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
    return invalidInput(err);
  }
  const client = await githubClient(ctx);
  const dispatchedAt = Date.now();
  const describe = (found: Awaited<ReturnType<typeof findDispatchedRun>>, at: number, again: boolean) => ({
    status: 'succeeded' as const,
    providerRef: found ? runRef(d, found.runId) : null,
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
      workflow_id: workflowId(d.workflow),
      ref: d.ref,
      inputs: d.inputs,
    }),
  );
  // GitHub usually has the run listed within a second or two; when not yet, the follower finds it.
  return describe(await findDispatchedRun(client, { ...d, dispatchedAt: at }), at, false);
}

async function rerunFailed(input: Record<string, unknown>, ctx: ProviderCallContext): Promise<ProviderResult> {
  let target: Repo & { runId: number };
  try {
    const runId = Number(input.runId);
    if (!Number.isSafeInteger(runId) || runId <= 0) throw new TypeError('runId is a workflow run id');
    target = { ...repoOf(input), runId };
  } catch (err) {
    return invalidInput(err);
  }
  const client = await githubClient(ctx);
  await limited(() =>
    client.rest.actions.reRunWorkflowFailedJobs({ owner: target.owner, repo: target.repo, run_id: target.runId }),
  );
  return {
    status: 'succeeded',
    providerRef: runRef(target, target.runId),
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
