import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { EVENTS, PODS } from '../support/pod-fixtures.js';

const repair = (token: string | undefined, body: unknown) =>
  harness.call('POST', '/v1/kubernetes/repair', { token, body });

describe('kubernetes: POST /v1/kubernetes/repair', () => {
  let a: { token: string };
  before(async () => {
    a = await harness.account();
  });

  it('classifies each pod failure, with its cause, evidence and workload', async () => {
    const res = await repair(a.token, { pods: Object.values(PODS), events: EVENTS });
    assert.equal(res.status, 200, res.text);
    const of = (pod: string) =>
      res.body.findings.filter((f: any) => f.pod.startsWith(`${pod}-`)).map((f: any) => [f.kind, f.causeClass]);
    assert.deepEqual(of('api'), [['CrashLoopBackOff', 'exit127']]);
    assert.deepEqual(of('worker'), [['CrashLoopBackOff', 'exit1']]);
    assert.deepEqual(of('cache'), [['OOMKilled', 'oom']]);
    assert.deepEqual(of('web'), [['ImagePullBackOff', 'notFound']]);
    assert.deepEqual(of('admin'), [['ImagePullBackOff', 'unauthorized']]);
    assert.deepEqual(of('docs'), [['ImagePullBackOff', 'rateLimited']]);
    assert.deepEqual(of('billing'), [['CreateContainerConfigError', 'missingSecretKey']]);
    assert.deepEqual(of('mailer'), [['CreateContainerConfigError', 'missingConfigMap']]);
    assert.deepEqual(of('batch'), [['FailedScheduling', 'insufficientCpu']]);
    assert.deepEqual(of('etl'), [['FailedScheduling', 'insufficientMemory']]);
    assert.deepEqual(of('gpu'), [['FailedScheduling', 'taint']]);
    assert.deepEqual(of('db'), [['FailedScheduling', 'nodeAffinity']]);
    assert.deepEqual(of('search'), [['ProbeFailure', 'readiness']]);
    assert.deepEqual(of('report'), [['Evicted', 'memoryPressure']]);
    assert.deepEqual(of('files'), [['VolumeMountError', 'missingpersistentvolumeclaim']]);
    assert.deepEqual(of('ok'), [], 'a healthy pod has no finding');
    const api = res.body.findings.find((f: any) => f.pod.startsWith('api-'));
    assert.equal(api.workload, 'deployment/api');
    assert.match(api.cause, /command was not found/);
    assert.equal(res.body.verdict, 'needsApproval');
    assert.equal(res.body.mutated, false);
  });

  it('remediations are patches and dry-run commands; every mutating one needs an approval', async () => {
    const res = await repair(a.token, { pods: [PODS.oom, PODS.configKey, PODS.crashExit127] });
    const { findings, remediations, approvals } = res.body;
    const oom = findings.find((f: any) => f.kind === 'OOMKilled');
    const raise = remediations.find((r: any) => r.findingId === oom.findingId && r.mutating);
    assert.deepEqual(raise.patch, [
      { op: 'replace', path: '/spec/template/spec/containers/0/resources/limits/memory', value: '1Gi' },
    ]);
    assert.match(
      raise.dryRunCommand,
      /^kubectl -n shop patch deployment\/cache --type=json -p '.*' --dry-run=server -o yaml$/,
    );
    for (const r of remediations.filter((r: any) => r.mutating)) {
      assert.match(r.dryRunCommand, /--dry-run=(server|client)/, r.dryRunCommand);
      assert.ok(
        approvals.some((a: any) => a.findingId === r.findingId && a.action === r.description),
        `approval for ${r.description}`,
      );
    }
    assert.equal(approvals.length, remediations.filter((r: any) => r.mutating).length);
    const key = remediations.find((r: any) => r.mutating && r.target === 'secret/billing-secrets');
    assert.match(key.description, /Add key STRIPE_KEY to secret billing-secrets/);
    assert.ok(remediations.some((r: any) => !r.mutating && /logs api-.* --previous/.test(r.dryRunCommand)));
  });

  it('healthy pods: verdict healthy, nothing to approve; 400 and 401', async () => {
    const res = await repair(a.token, { pods: [PODS.healthy] });
    assert.deepEqual([res.body.verdict, res.body.findings.length, res.body.approvals.length], ['healthy', 0, 0]);
    assert.equal((await repair(a.token, { events: [] })).status, 400);
    assert.equal((await repair(a.token, { pods: ['not a pod'] })).status, 400);
    assert.equal((await repair(undefined, { pods: [] })).status, 401);
  });
});
