import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';
import { until } from '../support/receiver.js';
import { startKubeFake, type KubeFake } from '../support/kube-fake.js';

/**
 * A failing pod read from the Kubernetes API (the stateful fake), classified across every container, its patch
 * accepted by a server-side dry run, applied only once a second member approves, and the rollout watched from a
 * waitpoint by the kubernetes-rollouts queue to its end; a rollout that fails is rolled back to the previous
 * ReplicaSet's template.
 */
describe('kubernetes repair through the Kubernetes API (HTTP → queue → worker → cluster)', function () {
  this.timeout(60_000);
  let fake: KubeFake;
  beforeEach(async () => {
    fake = await startKubeFake();
  });
  afterEach(async () => fake.stop());

  async function setup(credential?: unknown) {
    const a = await harness.account();
    const value = JSON.stringify(credential ?? { server: fake.url, token: fake.token });
    const stored = await harness.call('POST', '/v1/bridge/credentials', {
      token: a.token,
      body: { name: 'staging-cluster', kind: 'bearer', value },
    });
    assert.equal(stored.status, 201, stored.text);
    const approver = await member(a.accountId, 'approver');
    return { ...a, approver };
  }

  const start = (token: string, body: Record<string, unknown> = {}) =>
    harness.call('POST', '/v1/kubernetes/runs', {
      token,
      body: { credential: 'cred:staging-cluster', namespace: 'shop', deployment: 'web', ...body },
    });

  /** The run once its status is one of `statuses`. */
  const reached = async (token: string, runId: string, statuses: string[]): Promise<any> =>
    (
      await until(
        () => harness.call('GET', `/v1/runs/${runId}`, { token }),
        (res) => statuses.includes(res.body.run?.status),
        30_000,
      )
    ).body.run;

  const memoryOfApp = () =>
    fake.deployment.spec.template.spec.containers.find((c: any) => c.name === 'app').resources.limits.memory;
  const realPatches = () => fake.requests.filter((r) => r.method === 'PATCH' && !/dryRun=All/.test(r.query));

  it('classifies the 2nd container, dry-runs a patch naming it, applies it once approved, watches it', async () => {
    const a = await setup();
    const started = await start(a.token);
    assert.equal(started.status, 200, started.text);
    assert.equal(started.body.status, 'awaitingApproval', started.text);
    const repair = started.body.repair;
    const oom = repair.findings.find((f: any) => f.kind === 'OOMKilled');
    assert.equal(oom.container, 'app');
    assert.deepEqual(oom.containerRef, { name: 'app', init: false, index: 1 });
    assert.equal(repair.change.strategy, 'strategic');
    assert.deepEqual(repair.change.body.spec.template.spec.containers, [
      { name: 'app', resources: { limits: { memory: '1Gi' } } },
    ]);
    assert.equal(repair.dryRun.accepted, true, repair.dryRun.message);
    assert.deepEqual(
      repair.history.map((h: any) => h.revision),
      [2, 1],
    );
    // The dry run reached the API server; nothing was applied yet.
    assert.ok(fake.requests.some((r) => r.method === 'PATCH' && /dryRun=All/.test(r.query)));
    assert.ok(fake.requests.every((r) => r.method !== 'PATCH' || r.contentType.startsWith('application/strategic')));
    assert.equal(realPatches().length, 0);
    assert.equal(memoryOfApp(), '512Mi');

    const own = await harness.call('POST', `/v1/runs/${started.body.runId}/resume`, {
      token: a.token,
      body: { approved: true },
    });
    assert.equal(own.status, 409, own.text);
    assert.equal(own.body.error, 'selfApproval');
    assert.equal(realPatches().length, 0);

    const approved = await harness.call('POST', `/v1/runs/${started.body.runId}/resume`, {
      token: a.approver.token,
      body: { approved: true },
    });
    assert.ok([200, 202].includes(approved.status), approved.text);
    const done = await reached(a.token, started.body.runId, ['repaired', 'rolledBack', 'failed']);
    assert.equal(done.status, 'repaired', JSON.stringify(done.result?.results?.kubernetes ?? done));
    assert.equal(memoryOfApp(), '1Gi');
    assert.equal(realPatches().length, 1);
    const out = done.result.results.kubernetes;
    assert.equal(out.applied.by, 'approval');
    assert.equal(out.applied.approvedBy, a.approver.memberId);
    assert.equal(out.rollout.phase, 'complete');
    assert.equal(out.rollout.state.availableReplicas, 2);
  });

  it('rolls back to the previous ReplicaSet when the rollout exceeds its progress deadline', async () => {
    const a = await setup();
    fake.outcome = 'deadline';
    const started = await start(a.token);
    assert.equal(started.body.status, 'awaitingApproval', started.text);
    await harness.call('POST', `/v1/runs/${started.body.runId}/resume`, {
      token: a.approver.token,
      body: { approved: true },
    });
    const done = await reached(a.token, started.body.runId, ['repaired', 'rolledBack', 'failed']);
    assert.equal(done.status, 'rolledBack', JSON.stringify(done.result ?? done));
    const out = done.result.results.kubernetes;
    assert.equal(out.rollout.phase, 'failed');
    assert.match(out.rollout.message, /progress deadline/);
    assert.equal(out.rolledBack.toRevision, 2);
    assert.equal(memoryOfApp(), '512Mi');
    const [, rollback] = realPatches();
    assert.ok(rollback!.contentType.startsWith('application/merge-patch+json'));
  });

  it('refused at the gate, nothing is applied and the run ends blocked', async () => {
    const a = await setup();
    const started = await start(a.token);
    await harness.call('POST', `/v1/runs/${started.body.runId}/resume`, {
      token: a.approver.token,
      body: { approved: false },
    });
    const done = await reached(a.token, started.body.runId, ['blocked', 'failed']);
    assert.equal(done.status, 'blocked');
    assert.equal(realPatches().length, 0);
  });

  it('a wrong token fails the run naming the refusal; no secret in the answer', async () => {
    const a = await setup({ server: fake.url, token: 'wrong-token-value-123' });
    const started = await start(a.token);
    const done =
      started.body.status === 'failed' ? started.body : await reached(a.token, started.body.runId, ['failed']);
    const text = JSON.stringify(done);
    assert.match(text, /refused the credential \(401 Unauthorized\)/);
    assert.doesNotMatch(text, /wrong-token-value-123/);
  });

  it('the route: 400 on a bad namespace, 401 without a token, 422 for a credential of another account', async () => {
    const a = await setup();
    const other = await harness.account();
    assert.equal((await start(a.token, { namespace: 'Not_A_Namespace' })).status, 400);
    assert.equal((await harness.call('POST', '/v1/kubernetes/runs', { body: {} })).status, 401);
    const cross = await start(other.token);
    assert.equal(cross.status, 422, cross.text);
    assert.equal(cross.body.details.problem, 'credentialUnavailable');
    const missing = await start(a.token, { deployment: 'nope' });
    const done =
      missing.body.status === 'failed' ? missing.body : await reached(a.token, missing.body.runId, ['failed']);
    assert.match(JSON.stringify(done), /not found/);
  });
});
