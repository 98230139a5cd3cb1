import type { GATE_NAMES, GATE_STATUSES, STRATEGIES } from '../../shared/schemas/dev-delivery.js';
import type { PlanVerdict } from '../../shared/schemas/delivery-ops.js';

type GateName = (typeof GATE_NAMES)[number];
type GateStatus = (typeof GATE_STATUSES)[number];
export type Strategy = (typeof STRATEGIES)[number];

export interface GateResult {
  gate: GateName;
  status: GateStatus | 'missing';
  ok: boolean;
  /** What this gate does to the verdict when it is not ok. */
  effect: 'none' | 'needsApproval' | 'blocks';
  why: string;
}

export interface StepSpec {
  action: string;
  description: string;
  [detail: string]: unknown;
}
export type PlanStep = StepSpec & { order: number };

export interface ReleasePlanResult {
  verdict: PlanVerdict;
  reasons: string[];
  strategy: Strategy;
  production: boolean;
  gates: GateResult[];
  steps: PlanStep[];
  rollback: { trigger: string; toVersion: string | null; steps: string[] };
}

export interface PlanInput {
  service: string;
  environment: string;
  version: string;
  strategy?: Strategy;
  artifacts?: Partial<Record<GateName, string>>;
  previousVersion?: string;
}

/** Environment names that mean production: they need an approval and get slower, safer rollouts. */
export const isProduction = (environment: string) => /^(prod|production|live|prd)$/i.test(environment.trim());

/** The status a gate must report to pass. */
const PASSING: Record<GateName, GateStatus> = {
  build: 'passed',
  tests: 'passed',
  security: 'passed',
  approval: 'approved',
  health: 'healthy',
};

/**
 * Judges one gate. A gate that is absent or pending has not passed (fail
 * closed); approval is the exception outside production, where none is
 * required, and in production, where a missing or pending one asks for it.
 */
export function judgeGate(gate: GateName, status: string | undefined, production: boolean): GateResult {
  const s = (status ?? 'missing') as GateResult['status'];
  const pass = PASSING[gate];
  if (s === pass) return { gate, status: s, ok: true, effect: 'none', why: `${gate} is ${s}` };
  if (gate === 'approval') {
    if (s === 'rejected') return { gate, status: s, ok: false, effect: 'blocks', why: 'the release was rejected' };
    if (!production && s === 'missing')
      return { gate, status: s, ok: true, effect: 'none', why: 'no approval is required outside production' };
    if (production && (s === 'missing' || s === 'pending'))
      return { gate, status: s, ok: false, effect: 'needsApproval', why: 'production needs an explicit approval' };
  }
  const why =
    s === 'missing'
      ? `no ${gate} status was given; a missing gate is not a passed gate`
      : s === 'pending'
        ? `${gate} has not finished`
        : s === 'failed' || s === 'unhealthy' || s === 'rejected'
          ? `${gate} is ${s}`
          : `${s} is not a status the ${gate} gate passes with (it needs ${pass})`;
  return { gate, status: s, ok: false, effect: 'blocks', why };
}

/** Rollout steps specific to the strategy; production moves slower and keeps more capacity. */
function strategySteps(strategy: Strategy, p: PlanInput, production: boolean): StepSpec[] {
  const target = `${p.service}@${p.version}`;
  switch (strategy) {
    case 'canary': {
      const weights = production ? [5, 25, 50, 100] : [10, 50, 100];
      const pauseMinutes = production ? 10 : 2;
      return [
        { action: 'deployCanary', description: `Deploy ${target} as a canary beside the current version`, replicas: 1 },
        ...weights.map((weight) => ({
          action: weight === 100 ? 'promote' : 'shiftTraffic',
          description:
            weight === 100
              ? `Promote ${target} to all traffic`
              : `Send ${weight} % of traffic to the canary, pause ${pauseMinutes} min and compare error rate ` +
                `and p95 latency with the baseline`,
          weight,
          pauseMinutes: weight === 100 ? 0 : pauseMinutes,
          abortIf: weight === 100 ? undefined : 'error rate or p95 latency above baseline + 10 %',
        })),
        { action: 'retireBaseline', description: 'Scale the previous version down once the canary holds all traffic' },
      ];
    }
    case 'blue-green': {
      const drainSeconds = production ? 300 : 60;
      return [
        {
          action: 'deployGreen',
          description: `Deploy ${target} as the green environment at full capacity, no traffic`,
        },
        { action: 'smokeTest', description: 'Run smoke tests against green through its private endpoint' },
        {
          action: 'switchTraffic',
          description: 'Switch the router (service selector or load balancer) from blue to green in one change',
        },
        {
          action: 'drainBlue',
          description: `Let blue drain open connections for ${drainSeconds} s, keep it warm for rollback`,
          drainSeconds,
        },
        { action: 'retireBlue', description: 'Scale blue down after the rollback window' },
      ];
    }
    case 'recreate':
      return [
        {
          action: 'announceDowntime',
          description: production
            ? 'Recreate stops every replica before starting new ones: schedule a maintenance window and ' +
              'announce the downtime'
            : 'Recreate stops every replica first: expect a short outage',
          expectedDowntime: 'from stop to first ready replica (image pull + startup + readiness)',
        },
        { action: 'scaleDown', description: 'Scale the current version to 0 replicas' },
        { action: 'deploy', description: `Start ${target} at full replica count` },
        { action: 'verify', description: 'Wait for readiness and run smoke tests' },
      ];
    default: {
      const maxSurge = '25%';
      const maxUnavailable = production ? '0' : '25%';
      return [
        {
          action: 'configureRollout',
          description:
            `Rolling update with maxSurge ${maxSurge} and maxUnavailable ` +
            `${maxUnavailable}${production ? ' (no capacity is lost in production)' : ''}`,
          maxSurge,
          maxUnavailable,
        },
        { action: 'rollOut', description: `Replace pods with ${target} batch by batch, each batch gated on readiness` },
        {
          action: 'watchRollout',
          description:
            `Watch \`kubectl rollout status deployment/${p.service}\` until complete; pause on failing ` + `readiness`,
        },
        { action: 'verify', description: 'Check error rate and latency against the pre-release baseline' },
      ];
    }
  }
}

function rollbackFor(strategy: Strategy, p: PlanInput): ReleasePlanResult['rollback'] {
  const to = p.previousVersion ?? null;
  const previous = to ? `${p.service}@${to}` : 'the previous version';
  const steps: Record<Strategy, string[]> = {
    rolling: [
      `kubectl rollout undo deployment/${p.service}${to ? '' : ' (to the previous revision)'}`,
      `Watch the rollout back to ${previous} until complete`,
    ],
    canary: ['Set the canary weight to 0 %', 'Delete the canary deployment', `Confirm ${previous} serves all traffic`],
    'blue-green': [
      'Switch the router back to blue (still warm during the rollback window)',
      'Keep green for investigation, without traffic',
    ],
    recreate: [
      `Scale ${p.service}@${p.version} to 0`,
      `Start ${previous} again (a second outage: recreate has no overlap)`,
    ],
  };
  return {
    trigger: 'a failing health check, smoke test or error rate above the baseline after release',
    toVersion: to,
    steps: steps[strategy],
  };
}

/** A release plan: each gate judged, the verdict (fail closed), strategy-specific steps and the rollback. */
export function planRelease(p: PlanInput): ReleasePlanResult {
  const production = isProduction(p.environment);
  const strategy: Strategy = p.strategy ?? 'rolling';
  const gates = (['build', 'tests', 'security', 'approval', 'health'] as const).map((g) =>
    judgeGate(g, p.artifacts?.[g], production),
  );
  const blocking = gates.filter((g) => g.effect === 'blocks');
  const approval = gates.filter((g) => g.effect === 'needsApproval');
  const verdict: PlanVerdict = blocking.length > 0 ? 'blocked' : approval.length > 0 ? 'needsApproval' : 'ready';
  const steps: PlanStep[] = [
    {
      action: 'preflight',
      description: `Confirm ${p.service}@${p.version} is the artifact that passed build, tests and security`,
    },
    ...strategySteps(strategy, p, production),
  ].map((s: StepSpec, i) => ({ order: i + 1, ...s }));
  return {
    verdict,
    reasons: [...blocking, ...approval].map((g) => g.why),
    strategy,
    production,
    gates,
    steps,
    rollback: rollbackFor(strategy, p),
  };
}
