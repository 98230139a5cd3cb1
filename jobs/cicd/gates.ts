import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { commitGates, connectorsWithCapability, getConnector, providerContextFor } from '../bridge/index.js';
import { gatesFromCommit } from './commit-gates.js';
import { planRelease, type PlanInput, type ReleasePlanResult } from './logic.js';

type Obj = Record<string, any>;

/** Where the gates were read: the commit on GitHub, and the caller's statuses that were set aside for it. */
export interface GateSource {
  kind: 'github';
  connectorId: string;
  repo: string;
  ref: string;
  sha: string | null;
  findings: string[];
  /** Gates the caller asserted that CI decided instead (health, which CI does not know, stays the caller's). */
  ignored: string[];
  error?: string;
}

/** The account's GitHub connector for `ci`: the one it names, else the newest usable one; null without. */
async function githubConnector(deps: Deps, accountId: string, named?: string): Promise<string | null> {
  if (named) {
    const c = await getConnector(deps.db, accountId, named);
    return c && c.kind === 'github' && c.status !== 'disabled' ? c.connector_id : null;
  }
  const rows = await connectorsWithCapability(deps.db, accountId, 'ci.trigger', 20);
  return rows.find((c) => c.kind === 'github' && c.status !== 'disabled')?.connector_id ?? null;
}

/**
 * The release plan with its gates read from the CI when the request names a repository (`ci.repo`) and the account
 * has a GitHub connector: the checks, statuses and reviews of `ci.sha` (else the head of `ci.ref`, else `main`)
 * replace build, tests, security and approval as the caller gave them. A read GitHub refuses (no such repository, a
 * token without access) fails closed: those gates are missing, and the plan is blocked saying why; a transient one
 * (rate limit, GitHub away) throws, so the step is retried. Without a repository or a GitHub connector, the
 * caller's statuses are judged as before.
 */
export async function releasePlanFor(
  deps: Deps,
  accountId: string,
  input: PlanInput & { ci?: Obj },
): Promise<ReleasePlanResult & { gateSource: GateSource | null }> {
  const ci = input.ci;
  const [owner, repo] = typeof ci?.repo === 'string' ? ci.repo.split('/', 2) : [];
  const connectorId = owner && repo ? await githubConnector(deps, accountId, ci?.connectorId) : null;
  if (!connectorId || !owner || !repo) return { ...planRelease(input), gateSource: null };
  const ref = String(ci!.sha ?? ci!.ref ?? 'main');
  const given = input.artifacts ?? {};
  const source: GateSource = {
    kind: 'github',
    connectorId,
    repo: `${owner}/${repo}`,
    ref,
    sha: null,
    findings: [],
    ignored: (['build', 'tests', 'security', 'approval'] as const).filter((g) => given[g] !== undefined),
  };
  const fromCaller = given.health !== undefined ? { health: given.health } : {};
  const got = await providerContextFor(deps, accountId, connectorId, 'github', 'cicd.gates');
  const facts =
    'error' in got
      ? got
      : await commitGates(got.ctx, {
          owner,
          repo,
          ref,
          ...(typeof ci!.pullNumber === 'number' ? { pullNumber: ci!.pullNumber } : {}),
        });
  if ('error' in facts) {
    if (facts.error.transient) {
      const after = String(Math.ceil((facts.error.retryAfterMs ?? 30_000) / 1000));
      throw new AppError('unavailable', `GitHub: ${facts.error.message}`, undefined, { 'Retry-After': after });
    }
    source.error = `the checks of ${source.repo}@${ref} could not be read: ${facts.error.message}`;
    return { ...planRelease({ ...input, artifacts: fromCaller }), gateSource: source };
  }
  const read = gatesFromCommit(facts);
  source.sha = facts.sha;
  source.findings = read.findings;
  return { ...planRelease({ ...input, artifacts: { ...read.artifacts, ...fromCaller } }), gateSource: source };
}
