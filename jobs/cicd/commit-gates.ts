/**
 * Gates read from the CI (issue 33 item 1), pure: what GitHub says of a commit (check runs, commit statuses, the pull
 * request's reviews; `commitGates` of the GitHub adapter) turned into the gate statuses `planRelease` judges.
 *
 * Each check run and commit status counts toward one gate by its name: security (`codeql`, `snyk`, `trivy`, `audit`,
 * `scan`, `sast`, `security`, `dependency`), tests (`test`, `spec`, `e2e`, `unit`, `integration`, `lint`), else
 * build. A gate is `failed` when any of its checks failed (failure, cancelled, timed out, action required; a status
 * `error` or `failure`), `pending` while any has not finished, `passed` when all succeeded (neutral and skipped
 * count as passed). A gate no check is named for is judged by all of the commit's checks (a repository with one
 * `ci` workflow gates everything on it), and a commit with no check at all has no CI gate: missing, which blocks.
 * Approval comes from the reviews (the latest of each reviewer): changes requested → rejected, an approval →
 * approved, otherwise pending; without a pull request there is no review to read, and it stays missing (production
 * then asks for the run's own approval). Health is not something CI knows: it stays as the caller says.
 */

export interface CommitGateFacts {
  sha: string | null;
  checks: Array<{ name: string; status: string; conclusion: string | null }>;
  statuses: Array<{ context: string; state: string }>;
  reviews: Array<{ user: string; state: string; submittedAt: string | null }> | null;
}
type Verdict = 'passed' | 'failed' | 'pending';
type CiGate = 'build' | 'tests' | 'security';

const SECURITY = /secur|codeql|snyk|trivy|audit|\bscan|sast|dependenc|vuln/i;
const TESTS = /test|spec|e2e|unit|integration|lint/i;
const BAD_CONCLUSIONS = new Set(['failure', 'cancelled', 'timed_out', 'action_required', 'startup_failure', 'stale']);

const gateOf = (name: string): CiGate => (SECURITY.test(name) ? 'security' : TESTS.test(name) ? 'tests' : 'build');

interface Signal {
  name: string;
  verdict: Verdict;
}

function signals(f: CommitGateFacts): Signal[] {
  return [
    ...f.checks.map((c) => ({
      name: c.name,
      verdict: (c.status !== 'completed'
        ? 'pending'
        : BAD_CONCLUSIONS.has(c.conclusion ?? '')
          ? 'failed'
          : 'passed') as Verdict,
    })),
    ...f.statuses.map((s) => ({
      name: s.context,
      verdict: (s.state === 'success' ? 'passed' : s.state === 'pending' ? 'pending' : 'failed') as Verdict,
    })),
  ];
}

function judge(list: Signal[]): Verdict {
  if (list.some((s) => s.verdict === 'failed')) return 'failed';
  if (list.some((s) => s.verdict === 'pending')) return 'pending';
  return 'passed';
}

/** The approval the reviews give: each reviewer's latest review counts (a comment changes nothing). */
export function approvalOf(reviews: CommitGateFacts['reviews']): 'approved' | 'rejected' | 'pending' | undefined {
  if (!reviews) return undefined;
  const latest = new Map<string, string>();
  for (const r of reviews) if (r.state !== 'COMMENTED' && r.state !== 'PENDING') latest.set(r.user, r.state);
  const states = [...latest.values()];
  if (states.includes('CHANGES_REQUESTED')) return 'rejected';
  return states.includes('APPROVED') ? 'approved' : 'pending';
}

/** The gate statuses CI gives, and a finding per gate saying which checks made it. */
export function gatesFromCommit(f: CommitGateFacts): {
  artifacts: Partial<Record<CiGate | 'approval', string>>;
  findings: string[];
} {
  const all = signals(f);
  const artifacts: Partial<Record<CiGate | 'approval', string>> = {};
  const findings: string[] = [];
  for (const gate of ['build', 'tests', 'security'] as const) {
    if (all.length === 0) {
      findings.push(`${gate}: the commit has no check run or status`);
      continue;
    }
    const named = all.filter((s) => gateOf(s.name) === gate);
    const list = named.length ? named : all;
    artifacts[gate] = judge(list);
    const bad = list.filter((s) => s.verdict !== 'passed').map((s) => `${s.name} ${s.verdict}`);
    findings.push(
      `${gate} ${artifacts[gate]}: ${named.length ? '' : 'no check named for it, judged by all; '}` +
        `${list.length} check(s)${bad.length ? ` (${bad.join(', ')})` : ''}`,
    );
  }
  const approval = approvalOf(f.reviews);
  if (approval) {
    artifacts.approval = approval;
    findings.push(`approval ${approval}: from the pull request's reviews`);
  }
  return { artifacts, findings };
}
