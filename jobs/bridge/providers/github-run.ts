/**
 * Following a GitHub Actions run (issue 33): delivery reads the run it dispatched (github.ts) until it completes, and
 * a failed run's failed jobs with an excerpt of each one's log, so its answer says what failed without a trip to
 * GitHub.
 */
import type { Repo } from './github.js';
import { githubClient, githubFailure, limited, type GithubContext, type ProviderError } from './github-client.js';

/** Failed jobs read with their log, and the size of each excerpt: what a run's answer can hold. */
const MAX_FAILED_JOBS = 3;
const MAX_EXCERPT_CHARS = 1_500;
const EXCERPT_LINES = 12;

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
  ctx: GithubContext,
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
