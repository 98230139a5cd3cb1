/**
 * A small stateful Kubernetes API server for the repair flows: one Deployment with its ReplicaSet history, its pods
 * (container statuses, init containers included) and events, strategic-merge and merge patches (dryRun=All computes
 * and validates without persisting), and a rollout that, after a change, progresses over a few reads to available or
 * to ProgressDeadlineExceeded (`outcome`). A template equal to an older ReplicaSet's (a rollback) revives that
 * ReplicaSet under a new revision, as the deployment controller does. Bearer-token auth, Status objects for errors.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, any>;

export interface KubeFake {
  url: string;
  token: string;
  /** What the next applied change's rollout does. */
  outcome: 'available' | 'deadline';
  deployment: Obj;
  replicaSets: Obj[];
  pods: Obj[];
  events: Obj[];
  /** Every request as `METHOD path?query`, with the patch content type. */
  requests: Array<{ method: string; path: string; query: string; contentType: string; body: unknown }>;
  stop(): Promise<void>;
}

const NS = 'shop';
const APP = 'web';
const LABELS = { app: APP };

const template = (memory: string, image = 'registry.example/web:2.0') => ({
  metadata: { labels: { ...LABELS } },
  spec: {
    initContainers: [{ name: 'migrate', image: 'registry.example/web-migrate:2.0' }],
    containers: [
      { name: 'proxy', image: 'envoyproxy/envoy:v1.30', resources: { limits: { memory: '128Mi' } } },
      { name: 'app', image, resources: { limits: { memory } } },
    ],
  },
});

function replicaSet(revision: number, tpl: Obj, uid: string): Obj {
  const hash = `h${revision}x${Math.random().toString(36).slice(2, 7)}`;
  return {
    metadata: {
      name: `${APP}-${hash}`,
      namespace: NS,
      labels: { ...LABELS, 'pod-template-hash': hash },
      annotations: { 'deployment.kubernetes.io/revision': String(revision) },
      ownerReferences: [{ kind: 'Deployment', name: APP, uid, apiVersion: 'apps/v1', controller: true }],
      creationTimestamp: new Date(Date.now() - (10 - revision) * 60_000).toISOString(),
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: LABELS },
      template: { ...structuredClone(tpl), metadata: { labels: { ...LABELS, 'pod-template-hash': hash } } },
    },
    status: { replicas: 2, readyReplicas: 0 },
  };
}

/** The OOM-killed `app` container (second of two, behind an init container that completed). */
function failingPod(rs: Obj): Obj {
  return {
    metadata: { name: `${rs.metadata.name}-q7x2p`, namespace: NS, labels: rs.spec.template.metadata.labels },
    spec: structuredClone(rs.spec.template.spec),
    status: {
      phase: 'Running',
      initContainerStatuses: [
        { name: 'migrate', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
      ],
      containerStatuses: [
        { name: 'proxy', ready: true, restartCount: 0, image: 'envoyproxy/envoy:v1.30', state: { running: {} } },
        {
          name: 'app',
          ready: false,
          restartCount: 5,
          image: 'registry.example/web:2.0',
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 2m40s' } },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
        },
      ],
    },
  };
}
const ownerRef = (rs: Obj) => [{ kind: 'ReplicaSet', name: rs.metadata.name, apiVersion: 'apps/v1', controller: true }];

function isObj(v: unknown): v is Obj {
  return Boolean(v) && typeof v === 'object' && !Array.isArray(v);
}

/** RFC 7386. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Strategic merge as far as the fake needs: lists of containers merge by `name`, everything else as a merge patch. */
function strategicPatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if ((k === 'containers' || k === 'initContainers') && Array.isArray(v)) {
      const list = [...((out[k] as Obj[]) ?? [])];
      for (const item of v as Obj[]) {
        const at = list.findIndex((c) => c.name === item.name);
        if (at >= 0) list[at] = strategicPatch(list[at], item) as Obj;
        else list.push(item);
      }
      out[k] = list;
    } else out[k] = strategicPatch(out[k], v);
  }
  return out;
}

const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code,
  reason,
  message,
});

/** What the API server's validation says of a template: every container needs an image. */
function invalid(tpl: Obj): string | null {
  for (const list of ['initContainers', 'containers'])
    for (const [i, c] of ((tpl.spec?.[list] ?? []) as Obj[]).entries())
      if (!c.image)
        return `Deployment.apps "${APP}" is invalid: spec.template.spec.${list}[${i}].image: Required value`;
  return null;
}

const stripHash = (tpl: Obj) => {
  const t = structuredClone(tpl);
  delete t.metadata?.labels?.['pod-template-hash'];
  return JSON.stringify(t);
};

export async function startKubeFake(token = 'sa-token-not-a-secret-in-tests'): Promise<KubeFake> {
  const uid = 'd0c5e7a4-0000-4000-8000-000000000001';
  const rs1 = replicaSet(1, template('512Mi', 'registry.example/web:1.9'), uid);
  const rs2 = replicaSet(2, template('512Mi'), uid);
  const pod = failingPod(rs2);
  pod.metadata.ownerReferences = ownerRef(rs2);
  let rolloutReads = 0;
  const fake: KubeFake = {
    url: '',
    token,
    outcome: 'available',
    deployment: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: APP,
        namespace: NS,
        uid,
        generation: 4,
        annotations: { 'deployment.kubernetes.io/revision': '2' },
      },
      spec: {
        replicas: 2,
        selector: { matchLabels: LABELS },
        progressDeadlineSeconds: 60,
        template: template('512Mi'),
      },
      status: {
        observedGeneration: 4,
        replicas: 2,
        updatedReplicas: 2,
        availableReplicas: 0,
        conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }],
      },
    },
    replicaSets: [rs1, rs2],
    pods: [pod],
    events: [
      {
        metadata: { name: `${pod.metadata.name}.1`, namespace: NS },
        involvedObject: { kind: 'Pod', name: pod.metadata.name, fieldPath: 'spec.containers{app}' },
        reason: 'BackOff',
        message: 'Back-off restarting failed container app',
        count: 5,
      },
      {
        metadata: { name: 'other.1', namespace: NS },
        involvedObject: { kind: 'Pod', name: 'someone-else' },
        reason: 'Unhealthy',
        message: 'Liveness probe failed',
      },
    ],
    requests: [],
    stop: async () => undefined,
  };

  /** One read of the rollout moves it on: observed, then updated, then available (or past its deadline). */
  function advance(): void {
    const d = fake.deployment;
    if (d.status.observedGeneration === d.metadata.generation && rolloutReads === 0) return;
    rolloutReads++;
    if (rolloutReads === 1) d.status = { ...d.status, observedGeneration: d.metadata.generation, updatedReplicas: 1 };
    else if (fake.outcome === 'available') {
      d.status = { ...d.status, replicas: 2, updatedReplicas: 2, availableReplicas: 2 };
      d.status.conditions = [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }];
      rolloutReads = 0;
    } else {
      d.status.conditions = [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: `ReplicaSet "${APP}" has timed out progressing.`,
        },
      ];
      rolloutReads = 0;
    }
  }

  function applyTemplate(next: Obj): void {
    const d = fake.deployment;
    if (JSON.stringify(next) === JSON.stringify(d.spec.template)) return;
    const max = Math.max(
      ...fake.replicaSets.map((r) => Number(r.metadata.annotations['deployment.kubernetes.io/revision'])),
    );
    const old = fake.replicaSets.find((r) => stripHash(r.spec.template) === JSON.stringify(next));
    if (old) old.metadata.annotations['deployment.kubernetes.io/revision'] = String(max + 1);
    else fake.replicaSets.push(replicaSet(max + 1, next, uid));
    d.spec.template = next;
    d.metadata.generation += 1;
    d.metadata.annotations['deployment.kubernetes.io/revision'] = String(max + 1);
    d.status = { ...d.status, updatedReplicas: 0, availableReplicas: 0 };
    d.status.conditions = [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }];
    rolloutReads = 0;
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const contentType = String(req.headers['content-type'] ?? '');
      let body: unknown = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      fake.requests.push({ method: req.method!, path: url.pathname, query: url.search, contentType, body });
      const send = (code: number, value: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${fake.token}`)
        return send(401, status(401, 'Unauthorized', 'Unauthorized'));
      const p = url.pathname;
      if (p === `/api/v1/namespaces/${NS}/pods`)
        return send(200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: fake.pods });
      if (p === `/api/v1/namespaces/${NS}/events`)
        return send(200, { kind: 'EventList', apiVersion: 'v1', metadata: {}, items: fake.events });
      if (p === `/apis/apps/v1/namespaces/${NS}/replicasets`)
        return send(200, { kind: 'ReplicaSetList', apiVersion: 'apps/v1', metadata: {}, items: fake.replicaSets });
      if (p !== `/apis/apps/v1/namespaces/${NS}/deployments/${APP}`)
        return send(404, status(404, 'NotFound', `the server could not find the requested resource`));
      if (req.method === 'GET') {
        advance();
        return send(200, fake.deployment);
      }
      if (req.method !== 'PATCH') return send(405, status(405, 'MethodNotAllowed', 'method not allowed'));
      const strategic = contentType.startsWith('application/strategic-merge-patch+json');
      if (!strategic && !contentType.startsWith('application/merge-patch+json'))
        return send(415, status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format`));
      const patched = (strategic ? strategicPatch : mergePatch)(structuredClone(fake.deployment), body) as Obj;
      const problem = invalid(patched.spec.template);
      if (problem) return send(422, status(422, 'Invalid', problem));
      if (url.searchParams.get('dryRun') === 'All')
        return send(200, { ...patched, metadata: fake.deployment.metadata });
      applyTemplate(patched.spec.template);
      return send(200, fake.deployment);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}
