import type { Repo } from './github.js';
import { githubClient, githubFailure, limited, type GithubContext, type ProviderError } from './github-client.js';

/** Checks, commit statuses and (given a pull request) reviews of a commit: what cicd's gates are judged from. */
export async function commitGates(
  ctx: GithubContext,
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
