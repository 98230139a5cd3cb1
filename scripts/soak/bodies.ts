import { stepName, stepWork } from '../../jobs/benchmark/index.js';

/**
 * A plausible `POST /v1/orchestrator/run` body per domain, after the ones
 * test/flows sends (the route fixed with `domainRoute`, so the soak measures
 * the engine, not the router). A domain the manifest lists that has no body
 * here gets a bare request, and whatever it answers is recorded.
 */
const GREEN = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const PYTHON_PROJECT = {
  'pyproject.toml':
    '[tool.poetry]\nname = "api"\n\n[tool.poetry.dependencies]\npython = "^3.11"\npsycopg2-binary = "^2.9"\n',
  'poetry.lock': '# lock\n',
  '.python-version': '3.11.8\n',
  Dockerfile: 'FROM python:3.11-slim\nRUN pip install poetry\n',
};
const CRASHING_POD = {
  metadata: {
    name: 'api-7d9f8c6b5-a1b2c',
    namespace: 'shop',
    ownerReferences: [{ kind: 'ReplicaSet', name: 'api-7' }],
  },
  spec: { containers: [{ name: 'api', image: 'registry.example/api:1.4' }] },
  status: {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'api',
        image: 'registry.example/api:1.4',
        restartCount: 7,
        ready: false,
        state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' } },
        lastState: { terminated: { exitCode: 127, reason: 'Error' } },
      },
    ],
  },
};
const ALERT = {
  status: 'firing',
  commonLabels: { alertname: 'HighErrorRate', service: 'checkout', severity: 'critical' },
  commonAnnotations: { summary: 'checkout 5xx above 5 % for 10 minutes' },
  alerts: [{ status: 'firing', labels: { pod: 'checkout-1' }, startsAt: '2026-11-30T10:00:00Z', fingerprint: 'f1' }],
};
export const KIEZ = 'call Kiez Plumbing at +49 30 5550123 and confirm they can fix the leak tomorrow';
export const CHOICE = 'shortlist espresso machines under $250 so I can choose one';
/**
 * What a chain of `steps` benchmark steps returns for `runId` (the benchmark module's expectedDigest, whose
 * step count is typed as its peers' three).
 */
export function chainDigest(runId: string, rounds: number, steps: number): string {
  let digest = '';
  for (let p = 0; p < steps; p++) digest = stepWork(runId, stepName(p), digest, rounds);
  return digest;
}

/** SHA-256 rounds per benchmark step: enough to be a step, little enough for two shared cores. */
export const BENCH_HASHES = 200;

export function bodyFor(domain: string, n: number, ctx: { mandateId: string | null }): Record<string, unknown> {
  const route = { domainRoute: [domain] };
  switch (domain) {
    case 'hunt':
      return { request: 'find the cheapest espresso machine under $250', ...route };
    case 'resolve':
      return {
        request: 'Is this legit? The landlord wants a $900 deposit by gift card before I can see the flat.',
        ...route,
      };
    case 'proxy':
      return { request: KIEZ, consentToCall: true, ...route };
    case 'pay':
      // Under the soak's mandate it settles; without one (every other run) it rests awaiting approval.
      return {
        request: 'pay the cleaner',
        ...route,
        metadata: {
          ...(ctx.mandateId && n % 2 === 0 ? { mandateId: ctx.mandateId } : {}),
          payment: { vendorId: 'Shiny', amount: 1, currency: 'USD' },
        },
      };
    case 'environment':
      return { request: 'what does this project need to run?', ...route, metadata: { files: PYTHON_PROJECT } };
    case 'cicd':
      return {
        request: 'plan the release',
        ...route,
        metadata: { service: 'api', environment: 'staging', version: `1.${n}.0`, strategy: 'canary', artifacts: GREEN },
      };
    case 'kubernetes':
      return { request: 'diagnose', ...route, metadata: { pods: [CRASHING_POD] } };
    case 'incident':
      return { request: 'respond to this alert', ...route, metadata: { alerts: [ALERT] } };
    case 'migration':
      return {
        request: 'is this migration safe? ALTER TABLE orders ADD COLUMN paid_at timestamptz;',
        ...route,
      };
    case 'security':
      return {
        request: 'scan this repo for leaked keys',
        ...route,
        metadata: { files: { 'config/app.yml': 'db:\n  host: localhost\n  password: ${DB_PASSWORD}\n' } },
      };
    case 'delivery':
      return {
        request: 'deliver api to staging',
        domainRoute: ['environment', 'cicd', 'delivery'],
        metadata: {
          service: 'api',
          environment: 'staging',
          version: `2.${n}.0`,
          artifacts: GREEN,
          files: PYTHON_PROJECT,
        },
      };
    case 'benchmark':
      return {
        request: 'bench',
        domainRoute: ['benchmark', 'benchmark', 'benchmark'],
        metadata: { hashes: BENCH_HASHES },
      };
    default:
      return { request: `soak ${domain}`, ...route };
  }
}
