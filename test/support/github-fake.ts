import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small stateful GitHub REST API for the flows Prism cannot play (it answers each request alone): a workflow whose
 * `workflow_dispatch` makes a run titled by its `run-name` (`deploy <version> [<awp_run>]`, as the README asks a
 * workflow to), runs that move queued → in_progress → completed when the test says (`advance`), with the conclusion
 * it planned (`nextConclusion`), jobs with steps and logs (a 302 to a log blob, as GitHub answers), a re-run of the
 * failed jobs (the next attempt, queued again), check runs, commit statuses and reviews, the token checked on every
 * request, and a 429 with Retry-After or a 403 with x-ratelimit-remaining 0 on demand. The requests it takes are the
 * ones the Prism test checks (test/services/github-contract.test.ts).
 */
export interface FakeRun {
  id: number;
  workflow: string;
  ref: string;
  inputs: Record<string, string>;
  display_title: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: 'success' | 'failure' | null;
  run_attempt: number;
  created_at: string;
  planned: 'success' | 'failure';
}

export async function startGithubFake(opts: { token: string }) {
  let ids = 1000;
  const runs: FakeRun[] = [];
  const dispatches: Array<{ workflow: string; ref: string; inputs: Record<string, string> }> = [];
  const requests: Array<{ method: string; path: string; authorization: string }> = [];
  const limits: Array<{ status: 429 | 403; retryAfter?: number; resetIn?: number }> = [];
  const plans: Array<'success' | 'failure'> = [];
  const state = {
    checks: [] as Array<{ name: string; status: string; conclusion: string | null }>,
    statuses: [] as Array<{ context: string; state: string }>,
    reviews: [] as Array<{ user: string; state: string }>,
  };

  const jobsOf = (run: FakeRun) => {
    const deployFails = run.status === 'completed' && run.conclusion === 'failure';
    return [
      { id: run.id * 10 + 1, name: 'build', conclusion: run.status === 'completed' ? 'success' : null, steps: [] },
      {
        id: run.id * 10 + 2,
        name: 'deploy',
        status: run.status,
        conclusion: run.status === 'completed' ? run.conclusion : null,
        html_url: `https://github.test/jobs/${run.id * 10 + 2}`,
        steps: [
          { name: 'Check out', conclusion: 'success', number: 1, status: 'completed' },
          { name: 'Roll out', conclusion: deployFails ? 'failure' : 'success', number: 2, status: 'completed' },
        ],
      },
    ];
  };
  const logOf = (jobId: number) =>
    [
      '2026-11-26T10:00:00.0000000Z ##[group]Roll out',
      '2026-11-26T10:00:01.0000000Z kubectl rollout status deployment/api',
      '2026-11-26T10:00:02.0000000Z Waiting for deployment "api" rollout to finish: 1 of 3 updated replicas',
      `2026-11-26T10:00:09.0000000Z ##[error]deployment "api" exceeded its progress deadline (job ${jobId})`,
      '2026-11-26T10:00:09.1000000Z ##[error]Process completed with exit code 1.',
    ].join('\n');
  const runView = (r: FakeRun, base: string) => ({
    id: r.id,
    name: 'Deploy',
    display_title: r.display_title,
    event: 'workflow_dispatch',
    head_branch: r.ref,
    head_sha: 'a'.repeat(40),
    status: r.status,
    conclusion: r.conclusion,
    run_attempt: r.run_attempt,
    created_at: r.created_at,
    html_url: `${base}/octo/shop/actions/runs/${r.id}`,
  });

  function route(method: string, path: string, body: any, base: string): [number, unknown, Record<string, string>?] {
    let m: RegExpExecArray | null;
    if (method === 'POST' && (m = /^\/repos\/[^/]+\/[^/]+\/actions\/workflows\/([^/]+)\/dispatches$/.exec(path))) {
      if (typeof body.ref !== 'string') return [422, { message: 'Invalid request: ref is required' }];
      const inputs = (body.inputs ?? {}) as Record<string, string>;
      dispatches.push({ workflow: m[1]!, ref: body.ref, inputs });
      runs.push({
        id: ++ids,
        workflow: m[1]!,
        ref: body.ref,
        inputs,
        display_title: `deploy ${inputs.version ?? ''} [${inputs.awp_run ?? ''}]`,
        status: 'queued',
        conclusion: null,
        run_attempt: 1,
        created_at: new Date().toISOString(),
        planned: plans.shift() ?? 'success',
      });
      return [204, null];
    }
    if (method === 'GET' && (m = /^\/repos\/[^/]+\/[^/]+\/actions\/workflows\/([^/]+)\/runs$/.exec(path))) {
      const list = runs.filter((r) => r.workflow === m![1]).reverse();
      return [200, { total_count: list.length, workflow_runs: list.map((r) => runView(r, base)) }];
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/actions\/runs\/(\d+)(\/jobs|\/rerun-failed-jobs)?$/.exec(path))) {
      const run = runs.find((r) => r.id === Number(m![1]));
      if (!run) return [404, { message: 'Not Found' }];
      if (method === 'GET' && !m[2]) return [200, runView(run, base)];
      if (method === 'GET' && m[2] === '/jobs') return [200, { total_count: 2, jobs: jobsOf(run) }];
      if (method === 'POST' && m[2] === '/rerun-failed-jobs') {
        if (run.status !== 'completed') return [403, { message: 'This workflow is already running' }];
        Object.assign(run, { status: 'queued', conclusion: null, run_attempt: run.run_attempt + 1 });
        run.planned = plans.shift() ?? 'success';
        return [201, {}];
      }
    }
    if (method === 'GET' && (m = /^\/repos\/[^/]+\/[^/]+\/actions\/jobs\/(\d+)\/logs$/.exec(path)))
      return [302, null, { location: `${base.replace('127.0.0.1', 'localhost')}/_blobs/logs/${m[1]}` }];
    if (method === 'GET' && (m = /^\/_blobs\/logs\/(\d+)$/.exec(path))) return [200, logOf(Number(m[1]))];
    if (method === 'GET' && /\/commits\/[^/]+\/check-runs$/.test(path))
      return [200, { total_count: state.checks.length, check_runs: state.checks }];
    if (method === 'GET' && /\/commits\/[^/]+\/status$/.test(path))
      return [200, { state: 'success', sha: 'a'.repeat(40), statuses: state.statuses }];
    if (method === 'GET' && /\/pulls\/\d+\/reviews$/.test(path))
      return [200, state.reviews.map((r, i) => ({ id: i + 1, user: { login: r.user }, state: r.state }))];
    return [404, { message: 'Not Found' }];
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const authorization = String(req.headers.authorization ?? '');
      requests.push({ method: req.method ?? 'GET', path: url.pathname, authorization });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        const text = body === null ? '' : typeof body === 'string' ? body : JSON.stringify(body);
        const type = typeof body === 'string' ? 'text/plain' : 'application/json; charset=utf-8';
        res.writeHead(status, { ...(text ? { 'content-type': type } : {}), ...headers });
        res.end(text);
      };
      // The log blob is signed by its URL: it must not be sent GitHub's token.
      if (url.pathname.startsWith('/_blobs/')) return send(...route('GET', url.pathname, {}, base));
      if (authorization !== `token ${opts.token}` && authorization !== `bearer ${opts.token}`)
        return send(401, { message: 'Bad credentials' });
      const limit = limits.shift();
      if (limit?.status === 429)
        return send(429, { message: 'too many' }, { 'retry-after': String(limit.retryAfter ?? 1) });
      if (limit?.status === 403) {
        const reset = String(Math.floor(Date.now() / 1000) + (limit.resetIn ?? 1));
        return send(
          403,
          { message: 'API rate limit exceeded' },
          {
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': reset,
          },
        );
      }
      let body: any = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        return send(400, { message: 'Problems parsing JSON' });
      }
      send(...route(req.method ?? 'GET', url.pathname, body, base));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    runs,
    dispatches,
    requests,
    state,
    /** The conclusion the next run (or re-run attempt) will reach. */
    nextConclusion: (c: 'success' | 'failure') => void plans.push(c),
    /** The next request is answered with a rate limit. */
    limitNext: (l: { status: 429 | 403; retryAfter?: number; resetIn?: number }) => void limits.push(l),
    /** Moves a run one state on: queued → in_progress → completed (with its planned conclusion). */
    advance(runId?: number) {
      const run = runId ? runs.find((r) => r.id === runId) : runs[runs.length - 1];
      if (!run) throw new Error('no run');
      if (run.status === 'queued') run.status = 'in_progress';
      else if (run.status === 'in_progress') Object.assign(run, { status: 'completed', conclusion: run.planned });
      return run;
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
