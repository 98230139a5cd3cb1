/** `kubectl get pods -o json` items and events, one per failure class the kubernetes analyzer knows. */
const owner = (name: string) => [{ kind: 'ReplicaSet', name: `${name}-7d9f8c6b5` }];
const pod = (name: string, app: string, status: Record<string, unknown>, container: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'shop', ownerReferences: owner(app) },
  spec: { containers: [{ name: app, image: `registry.example/${app}:1.4`, ...container }] },
  status,
});
const waiting = (app: string, reason: string, message: string, last: Record<string, unknown> = {}) => ({
  phase: 'Pending',
  containerStatuses: [
    {
      name: app,
      image: `registry.example/${app}:1.4`,
      restartCount: 7,
      ready: false,
      state: { waiting: { reason, message } },
      lastState: last,
    },
  ],
});

export const PODS = {
  crashExit127: pod(
    'api-7d9f8c6b5-a1b2c',
    'api',
    waiting('api', 'CrashLoopBackOff', 'back-off 5m0s restarting failed container', {
      terminated: { exitCode: 127, reason: 'Error' },
    }),
  ),
  crashExit1: pod(
    'worker-7d9f8c6b5-z9y8x',
    'worker',
    waiting('worker', 'CrashLoopBackOff', 'back-off', { terminated: { exitCode: 1, reason: 'Error' } }),
  ),
  oom: pod(
    'cache-7d9f8c6b5-k3k3k',
    'cache',
    {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'cache',
          restartCount: 3,
          ready: true,
          state: { running: {} },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
        },
      ],
    },
    { resources: { limits: { memory: '512Mi' } } },
  ),
  pullNotFound: pod(
    'web-7d9f8c6b5-nf000',
    'web',
    waiting(
      'web',
      'ImagePullBackOff',
      'Back-off pulling image "registry.example/web:1.4": manifest unknown: manifest tagged by "1.4" is not found',
    ),
  ),
  pullUnauthorized: pod(
    'admin-7d9f8c6b5-un000',
    'admin',
    waiting(
      'admin',
      'ErrImagePull',
      'failed to pull and unpack image: failed to resolve reference: pull access denied, repository does not ' +
        'exist or may require authorization: server message: insufficient_scope: authorization failed, 401 ' +
        'Unauthorized',
    ),
  ),
  pullRateLimited: pod(
    'docs-7d9f8c6b5-rl000',
    'docs',
    waiting('docs', 'ErrImagePull', 'toomanyrequests: You have reached your pull rate limit.'),
  ),
  configKey: pod(
    'billing-7d9f8c6b5-ck000',
    'billing',
    waiting('billing', 'CreateContainerConfigError', "couldn't find key STRIPE_KEY in Secret shop/billing-secrets"),
  ),
  configMap: pod(
    'mailer-7d9f8c6b5-cm000',
    'mailer',
    waiting('mailer', 'CreateContainerConfigError', 'configmap "mailer-config" not found'),
  ),
  unschedulableCpu: pod('batch-7d9f8c6b5-sc000', 'batch', {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available',
      },
    ],
  }),
  unschedulableTaint: pod('gpu-7d9f8c6b5-tt000', 'gpu', {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: '0/2 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}.',
      },
    ],
  }),
  unschedulableAffinity: pod('db-7d9f8c6b5-af000', 'db', {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
      },
    ],
  }),
  unschedulableMemory: pod('etl-7d9f8c6b5-mm000', 'etl', { phase: 'Pending' }),
  probe: pod('search-7d9f8c6b5-pr000', 'search', {
    phase: 'Running',
    containerStatuses: [{ name: 'search', restartCount: 0, ready: false, state: { running: {} } }],
  }),
  evicted: {
    metadata: { name: 'report-7d9f8c6b5-ev000', namespace: 'shop', ownerReferences: owner('report') },
    spec: { containers: [{ name: 'report' }] },
    status: {
      phase: 'Failed',
      reason: 'Evicted',
      message: 'The node was low on resource: memory. Container report was using 1Gi, which exceeds its request of 0.',
    },
  },
  mount: pod('files-7d9f8c6b5-mt000', 'files', {
    phase: 'Pending',
    containerStatuses: [{ name: 'files', ready: false, state: { waiting: { reason: 'ContainerCreating' } } }],
  }),
  healthy: pod('ok-7d9f8c6b5-ok000', 'ok', {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'ok', restartCount: 0, ready: true, state: { running: {} } }],
  }),
};

export const EVENTS = [
  {
    involvedObject: { kind: 'Pod', name: 'etl-7d9f8c6b5-mm000' },
    reason: 'FailedScheduling',
    message: '0/3 nodes are available: 3 Insufficient memory.',
  },
  {
    involvedObject: { kind: 'Pod', name: 'search-7d9f8c6b5-pr000', fieldPath: 'spec.containers{search}' },
    reason: 'Unhealthy',
    count: 12,
    message: 'Readiness probe failed: Get "http://10.0.0.7:8080/healthz": context deadline exceeded',
  },
  {
    involvedObject: { kind: 'Pod', name: 'files-7d9f8c6b5-mt000' },
    reason: 'FailedMount',
    message: 'Unable to attach or mount volumes: persistentvolumeclaim "files-data" not found',
  },
];
