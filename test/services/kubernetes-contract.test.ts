import assert from 'node:assert/strict';
import { clusterAccess, clusterClient, patchDeployment, type Cluster } from '../../jobs/kubernetes/cluster.js';
import { dryRun, readWorkload } from '../../jobs/kubernetes/live.js';
import { harness } from '../support/harness.js';
import { startPrism, type PrismMock } from '../support/prism.js';
import {
  documentOrigin,
  KUBERNETES_API,
  providerDocument,
  writeSlice,
  type Operation,
} from '../support/openapi-slice.js';

/** What the cluster client calls (method, path): keep in step with jobs/kubernetes/live.ts, cluster.ts, watch.ts. */
const KUBERNETES_OPERATIONS: Operation[] = [
  ['get', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}'],
  ['patch', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}'],
  ['get', '/api/v1/namespaces/{namespace}/pods'],
  ['get', '/api/v1/namespaces/{namespace}/events'],
  ['get', '/apis/apps/v1/namespaces/{namespace}/replicasets'],
];
const origin = documentOrigin(providerDocument('kubernetes.io'));

/**
 * Every request the cluster client makes through `@kubernetes/client-node`, sent to Prism serving the Kubernetes
 * API's published OpenAPI document (the slice of it the client uses, test/fixtures/providers/README.md) with
 * `--errors`: a request that breaks the contract is refused there and fails here. The flows make the same calls
 * against the stateful fake (test/support/kube-fake.ts).
 */
describe(`the Kubernetes client's requests against the Kubernetes API document (${origin.url}) (Prism)`, function () {
  this.timeout(300_000);
  let prism: PrismMock;
  let cluster: Cluster;
  before(async () => {
    prism = await startPrism(writeSlice('kubernetes.io', KUBERNETES_OPERATIONS, KUBERNETES_API), 120_000, {
      dynamic: true,
    });
    const access = await clusterAccess(JSON.stringify({ server: prism.url, token: 'sa-token-contract' }));
    cluster = await clusterClient(access, harness.config.AWP_ALLOW_PRIVATE_EGRESS);
  });
  after(async () => prism?.stop());

  const violations = () =>
    prism
      .output()
      .split('\n')
      .filter((l) => /Violation:|✖ +error/.test(l));

  it('reads the workload (deployment, pods, events, replica sets) and patches it, dry run and for real', async () => {
    const w = await readWorkload(cluster, 'shop', 'web');
    assert.equal(typeof w.deployment, 'object');
    assert.ok(Array.isArray(w.pods) && Array.isArray(w.replicaSets) && Array.isArray(w.events));
    const strategic = {
      spec: { template: { spec: { containers: [{ name: 'app', resources: { limits: { memory: '1Gi' } } }] } } },
    };
    const dry = await dryRun(cluster, 'shop', 'web', {
      kind: 'patch',
      findingId: 'f1',
      description: 'raise the memory limit',
      strategy: 'strategic',
      body: strategic,
      fromRevision: 2,
    });
    assert.equal(dry.accepted, true, dry.message);
    await patchDeployment(cluster, 'shop', 'web', strategic, { dryRun: false, strategy: 'strategic' });
    await patchDeployment(
      cluster,
      'shop',
      'web',
      { spec: { template: { spec: { affinity: null } } } },
      {
        dryRun: false,
        strategy: 'merge',
      },
    );
    assert.deepEqual(violations(), [], 'Prism found no request breaking the contract');
  });

  it('is a real check: a request that breaks the contract is refused and logged', async () => {
    // A JSON patch is an array; the document's Patch body is an object, so Prism refuses it (and so the client sends
    // strategic-merge and merge patches, both objects).
    const res = await fetch(`${prism.url}/apis/apps/v1/namespaces/shop/deployments/web?dryRun=All`, {
      method: 'PATCH',
      headers: { authorization: 'Bearer x', 'content-type': 'application/json-patch+json' },
      body: JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 3 }]),
    });
    assert.equal(res.status, 422, await res.text());
    // Prism logs the violation after it answers: look for it a little while.
    for (let i = 0; i < 40 && violations().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(violations().length > 0, prism.output().slice(-3000));
    const anonymous = await fetch(`${prism.url}/api/v1/namespaces/shop/pods`);
    assert.equal(anonymous.status, 401);
  });
});
