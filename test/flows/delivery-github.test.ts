import assert from 'node:assert/strict';
import { followCiRuns } from '../../jobs/delivery/ci-follow.js';
import { providerConnector } from '../support/bridge.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { member } from '../support/approvers.js';
import { startGithubFake } from '../support/github-fake.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const TOKEN = 'ghp_flowToken0000000000000000000000000000';

/**
 * A staging delivery through a GitHub connector: the deploy is a workflow_dispatch sent through the SDK (a bridge
 * action), the run rests at `awaitingCi` while the workflow run is under way, and the `delivery.ci` sweep (called
 * here as the clock would) follows it and resumes the run through the real queue and worker; the fast follow (a
 * delayed job on the `delivery-ci` queue) may get there first, and the last test has it alone.
 */
describe('delivery runs deploy through GitHub Actions and follow the workflow run', function () {
  this.timeout(60_000);
  let gh: Awaited<ReturnType<typeof startGithubFake>>;
  let token: string;
  let accountId: string;
  let approver: { token: string };
  before(async () => {
    gh = await startGithubFake({ token: TOKEN });
    ({ token, accountId } = await harness.account());
    approver = await member(accountId, 'approver');
    await providerConnector(
      token,
      { name: 'gh-token', kind: 'bearer', value: TOKEN },
      { connectorId: 'gh', kind: 'github', caps: ['ci.trigger', 'ci.rerun'], endpoint: gh.url },
    );
    // The commit's CI is green: the gates are read from it (the caller's `artifacts` are ignored but for health).
    gh.state.checks.push(
      { name: 'build', status: 'completed', conclusion: 'success' },
      { name: 'unit tests', status: 'completed', conclusion: 'success' },
    );
    gh.state.statuses.push({ context: 'security/snyk', state: 'success' });
  });
  after(async () => gh?.stop());

  const deliver = (version: string, ci: Record<string, unknown> = {}) =>
    harness.call('POST', '/v1/delivery/run', {
      token,
      body: {
        service: 'api',
        environment: 'staging',
        version,
        artifacts: green,
        ci: { repo: 'octo/shop', workflow: 'deploy.yml', ref: 'main', inputs: { version }, ...ci },
      },
    });
  const run = async (runId: string) => (await harness.call('GET', `/v1/runs/${runId}`, { token })).body.run;
  const sweep = () => followCiRuns(harness.deps, { minAgeSeconds: 0 });
  const stage = (body: any, name: string) => body.stages.find((s: any) => s.name === name);
  /** The dispatch went out: its bridge action succeeded (GitHub took it and made its run). */
  const dispatched = async (runId: string) =>
    until(
      async () => (await harness.call('GET', `/v1/bridge/actions/bac_${runId.replace(/^run_/, '')}`, { token })).body,
      (a) => a.action?.status === 'succeeded' || a.status === 'succeeded',
    );
  const settledAs = async (runId: string, status: string) =>
    until(
      () => run(runId),
      (r) => r.status === status,
      20_000,
    );

  it('dispatches once with the correlation input, follows queued → in_progress → completed: delivered', async () => {
    gh.nextConclusion('success');
    const res = await deliver('3.0.0');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'awaitingCi', res.text);
    assert.equal(stage(res.body, 'deploy').status, 'running');
    const runId = res.body.runId as string;
    const gates = (await run(runId)).result.results.cicd.gateSource;
    assert.deepEqual([gates.repo, gates.ref, gates.ignored], ['octo/shop', 'main', ['build', 'tests', 'security']]);
    await dispatched(runId);
    const actionId = `bac_${runId.replace(/^run_/, '')}`;
    assert.deepEqual(gh.dispatches[0], {
      workflow: 'deploy.yml',
      ref: 'main',
      inputs: { version: '3.0.0', awp_run: actionId },
    });
    // GitHub's rate limit on the first read is waited out (Retry-After: 1) and the read made again.
    gh.limitNext({ status: 429, retryAfter: 1 });
    assert.equal((await sweep()).resumed, 0);
    assert.equal((await run(runId)).status, 'awaitingCi', 'still queued: the run keeps resting');
    gh.advance();
    assert.equal((await sweep()).resumed, 0);
    gh.advance();
    // The sweep, or the fast follow's delayed check if it comes first: the run is resumed once either way.
    await sweep();
    const done = await settledAs(runId, 'delivered');
    const deploy = stage(done, 'deploy');
    assert.equal(deploy.status, 'deployed', JSON.stringify(deploy));
    assert.match(deploy.findings[0], new RegExp(`actions/runs/${gh.runs[0]!.id} \\(attempt 1\\) succeeded`));
    assert.equal(gh.dispatches.length, 1, 'one dispatch');
    assert.deepEqual(await sweep(), { checked: 0, resumed: 0 }, 'nothing left to follow');
    assert.ok(!JSON.stringify(done).includes(TOKEN));
  });

  it('a failed workflow run ends the delivery failed with the failed job and its log excerpt', async () => {
    gh.nextConclusion('failure');
    const res = await deliver('3.0.1');
    assert.equal(res.body.status, 'awaitingCi', res.text);
    await dispatched(res.body.runId);
    gh.advance();
    gh.advance();
    await sweep();
    const done = await settledAs(res.body.runId, 'failed');
    const deploy = stage(done, 'deploy');
    assert.equal(deploy.status, 'failed');
    assert.match(deploy.findings[0], /concluded failure/);
    assert.match(deploy.findings[1], /^job deploy failure at Roll out:\n/);
    assert.match(deploy.findings[1], /exceeded its progress deadline/);
    assert.equal(stage(done, 'repair').status, 'skipped');
    const blobReads = gh.requests.filter((r) => r.path.startsWith('/_blobs/'));
    assert.ok(blobReads.length >= 1 && blobReads.every((r) => r.authorization === ''), 'no token to the log host');
  });

  it('a re-run of failed jobs needs a second member: the submitter is refused, the approver re-runs it', async () => {
    gh.nextConclusion('failure');
    gh.nextConclusion('success');
    const res = await deliver('3.0.2', { rerunFailedJobs: 'onApproval' });
    const runId = res.body.runId as string;
    await dispatched(runId);
    const ghRun = gh.runs.at(-1)!;
    gh.advance();
    gh.advance();
    await sweep();
    const atGate = await settledAs(runId, 'awaitingApproval');
    assert.equal(stage(atGate, 'repair').status, 'awaitingApproval');
    assert.equal(ghRun.run_attempt, 1, 'nothing re-run before the approval');
    const self = await harness.call('POST', `/v1/delivery/runs/${runId}/resume`, { token, body: { approved: true } });
    assert.equal(self.status, 409, self.text);
    assert.match(self.text, /selfApproval/);
    const ok = await harness.call('POST', `/v1/delivery/runs/${runId}/resume`, {
      token: approver.token,
      body: { approved: true },
    });
    assert.ok([200, 202].includes(ok.status), ok.text);
    await settledAs(runId, 'awaitingCi');
    await until(
      () => gh.runs[2]!.run_attempt,
      (n) => n === 2,
    );
    assert.equal((await sweep()).resumed, 0, 'the second attempt is queued');
    gh.advance(ghRun.id);
    gh.advance(ghRun.id);
    await sweep();
    const done = await settledAs(runId, 'delivered');
    assert.match(stage(done, 'deploy').findings[0], /\(attempt 2\) succeeded/);
    assert.equal(gh.runs.at(-1), ghRun, 'the re-run dispatched nothing new');
  });

  it('gates are read from the commit: a failing check run blocks although the caller says passed', async () => {
    const tests = gh.state.checks.find((c) => c.name === 'unit tests')!;
    tests.conclusion = 'failure';
    const sent = gh.dispatches.length;
    try {
      const res = await deliver('3.0.9', { sha: 'abc1234' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'blocked', res.text);
      assert.equal(stage(res.body, 'validate').status, 'failed', JSON.stringify(res.body.stages));
      const cicd = (await run(res.body.runId)).result.results.cicd;
      assert.equal(cicd.gates.find((g: any) => g.gate === 'tests').status, 'failed');
      assert.equal(cicd.gateSource.ref, 'abc1234', 'the commit being delivered');
      assert.match(cicd.gateSource.findings.join('\n'), /tests failed: 1 check\(s\) \(unit tests failed\)/);
      assert.equal(gh.dispatches.length, sent, 'nothing dispatched');
      assert.ok(gh.requests.some((r) => r.path === '/repos/octo/shop/commits/abc1234/check-runs'));
    } finally {
      tests.conclusion = 'success';
    }
  });

  it('the fast follow alone: the run learns its outcome from the delayed checks, the sweep never called', async () => {
    gh.nextConclusion('success');
    const res = await deliver('3.1.0');
    assert.equal(res.body.status, 'awaitingCi', res.text);
    const runId = res.body.runId as string;
    await dispatched(runId);
    gh.advance();
    gh.advance();
    const done = await settledAs(runId, 'delivered');
    assert.match(stage(done, 'deploy').findings[0], /\(attempt 1\) succeeded/);
    const waits = await harness.deps.db('waitpoints').where({ run_id: runId, kind: 'awaitingCi' });
    assert.deepEqual(
      waits.map((w: any) => Boolean(w.resolved_at)),
      [true],
      'one waitpoint, resolved once',
    );
    assert.deepEqual(await sweep(), { checked: 0, resumed: 0 }, 'nothing left for the sweep');
  });

  it('without a CI connector a delivery is a dry run and ends dryRun, never delivered', async () => {
    const other = await harness.account();
    const res = await harness.call('POST', '/v1/delivery/run', {
      token: other.token,
      body: { service: 'api', environment: 'staging', version: '1.0.0', artifacts: green },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'dryRun');
    assert.equal(stage(res.body, 'deploy').status, 'dry run');
  });
});
