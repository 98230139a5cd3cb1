import { locateContainer } from './patches.js';
import { remediate, type Approval, type Finding, type Remediation } from './remedies.js';

export type { Finding };

type Obj = Record<string, any>;
const asArray = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);

/** What an exit code of a crashing container usually means. */
export function exitCodeCause(code: number | undefined, reason?: string): [string, string] {
  if (reason === 'OOMKilled') return ['oom', 'killed for exceeding its memory limit'];
  switch (code) {
    case 0:
      return [
        'exit0',
        'the process exited successfully, but the pod restarts it (a one-shot command in a Deployment?)',
      ];
    case 1:
      return ['exit1', 'the application exited with an error at start-up (read the previous logs)'];
    case 126:
      return ['exit126', 'the command is not executable (permissions or wrong binary format)'];
    case 127:
      return ['exit127', 'the command was not found in the image (wrong entrypoint or missing binary)'];
    case 137:
      return ['exit137', 'killed by SIGKILL (memory pressure or a failing liveness probe)'];
    case 139:
      return ['exit139', 'segmentation fault'];
    case 143:
      return ['exit143', 'terminated by SIGTERM (liveness probe or shutdown it did not survive)'];
    default:
      return ['exitOther', code === undefined ? 'no exit code recorded yet' : `exited with code ${code}`];
  }
}

/** `api-7d9f8c6b5-x2x9z` owned by ReplicaSet `api-7d9f8c6b5` → `deployment/api`. */
export function workloadOf(pod: Obj): string {
  const owner = asArray(pod.metadata?.ownerReferences)[0];
  if (!owner) return `pod/${pod.metadata?.name ?? 'unknown'}`;
  if (owner.kind === 'ReplicaSet' && typeof owner.name === 'string')
    return `deployment/${owner.name.replace(/-[a-z0-9]{5,10}$/, '')}`;
  return `${String(owner.kind).toLowerCase()}/${owner.name}`;
}

function imagePullCause(message: string): [string, string] {
  // An explicit auth failure first: containerd words a refused pull as "repository does not exist or may require
  // authorization".
  if (/unauthorized|authentication required|authorization failed|\b40[13]\b|forbidden/i.test(message))
    return ['unauthorized', 'the registry refused the pull: credentials missing or wrong (imagePullSecrets)'];
  if (/toomanyrequests|rate limit|\b429\b/i.test(message))
    return ['rateLimited', 'the registry rate-limited the pulls'];
  if (/not found|manifest unknown|does not exist|no such host/i.test(message))
    return ['notFound', 'the image or tag does not exist in the registry'];
  if (/denied/i.test(message))
    return ['unauthorized', 'the registry refused the pull: credentials missing or wrong (imagePullSecrets)'];
  return ['unknown', 'the image could not be pulled'];
}

function configCause(message: string): [string, string, Record<string, string>] {
  let m = /couldn't find key (\S+) in (ConfigMap|Secret) ([\w.-]+)\/([\w.-]+)/i.exec(message);
  if (m)
    return [
      `missing${m[2]}Key`,
      `${m[2]} ${m[4]} has no key ${m[1]}`,
      { key: m[1]!, kind: m[2]!.toLowerCase(), name: m[4]! },
    ];
  m = /(configmap|secret) "([^"]+)" not found/i.exec(message);
  if (m)
    return [
      `missing${m[1]!.toLowerCase() === 'secret' ? 'Secret' : 'ConfigMap'}`,
      `${m[1]} ${m[2]} does not exist`,
      { kind: m[1]!.toLowerCase(), name: m[2]! },
    ];
  return ['unknown', 'the container configuration refers to something missing', {}];
}

export function schedulingCauses(message: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (/Insufficient cpu/i.test(message)) out.push(['insufficientCpu', 'no node has enough free CPU for the requests']);
  if (/Insufficient memory/i.test(message))
    out.push(['insufficientMemory', 'no node has enough free memory for the requests']);
  if (/taint/i.test(message))
    out.push([
      'taint',
      `nodes carry taints the pod does not ` +
        `tolerate${/\{([^}]+)\}/.exec(message) ? ` (${/\{([^}]+)\}/.exec(message)![1]})` : ''}`,
    ]);
  if (/node affinity|node selector/i.test(message))
    out.push(['nodeAffinity', "no node matches the pod's node selector or node affinity"]);
  if (/pod affinity|anti-affinity/i.test(message))
    out.push(['podAffinity', 'pod affinity or anti-affinity rules leave no node']);
  if (/persistentvolumeclaim|unbound/i.test(message))
    out.push(['unboundVolume', 'a PersistentVolumeClaim is not bound']);
  return out.length ? out : [['unknown', 'the scheduler found no node']];
}

/**
 * Findings for each failing pod from `kubectl get pods -o json` items and
 * their events: the failure class, its cause and the evidence quoted from
 * the pod or event. Reads only what it is given.
 */
export function diagnosePods(pods: Obj[], events: Obj[]): Finding[] {
  const findings: Finding[] = [];
  const add = (pod: Obj, f: Omit<Finding, 'findingId' | 'pod' | 'namespace' | 'workload' | 'containerRef'>) => {
    const key = `${pod.metadata?.name}/${f.container}/${f.kind}/${f.causeClass}`;
    if (findings.some((x) => `${x.pod}/${x.container}/${x.kind}/${x.causeClass}` === key)) return;
    findings.push({
      findingId: `f${findings.length + 1}`,
      pod: String(pod.metadata?.name ?? 'unknown'),
      namespace: String(pod.metadata?.namespace ?? 'default'),
      workload: workloadOf(pod),
      ...f,
      // Init containers included: a fix patches the container the finding is about, by its place in the template.
      containerRef: locateContainer(pod.spec, f.container),
    });
  };
  for (const pod of pods) {
    const name = pod.metadata?.name;
    const status = pod.status ?? {};
    const specs = asArray(pod.spec?.containers);
    // A container status is matched with its spec in either list: init containers fail too (a migration, a wait).
    const allSpecs = [...asArray(pod.spec?.initContainers), ...specs];
    if (status.reason === 'Evicted') {
      add(pod, {
        kind: 'Evicted',
        container: null,
        causeClass: /memory/i.test(status.message ?? '')
          ? 'memoryPressure'
          : /ephemeral-storage|disk/i.test(status.message ?? '')
            ? 'diskPressure'
            : 'other',
        cause: `evicted: ${status.message ?? 'node pressure'}`,
        evidence: [`status.reason=Evicted`, String(status.message ?? '')],
        detail: {},
      });
    }
    for (const c of [...asArray(status.initContainerStatuses), ...asArray(status.containerStatuses)]) {
      const waiting = c.state?.waiting ?? {};
      const terminated = c.lastState?.terminated ?? c.state?.terminated ?? {};
      const spec = allSpecs.find((s) => s.name === c.name) ?? {};
      const limits = { memory: spec.resources?.limits?.memory ?? null, cpu: spec.resources?.limits?.cpu ?? null };
      if (terminated.reason === 'OOMKilled') {
        add(pod, {
          kind: 'OOMKilled',
          container: c.name,
          causeClass: 'oom',
          cause:
            `container ${c.name} was killed for exceeding its memory ` +
            `limit${limits.memory ? ` (${limits.memory})` : ' (no limit set: the node ran out)'}`,
          evidence: [
            `lastState.terminated.reason=OOMKilled`,
            `exitCode=${terminated.exitCode ?? 137}`,
            `restartCount=${c.restartCount ?? 0}`,
          ],
          detail: { limits, image: c.image },
        });
      } else if (waiting.reason === 'CrashLoopBackOff') {
        const [cls, cause] = exitCodeCause(terminated.exitCode, terminated.reason);
        add(pod, {
          kind: 'CrashLoopBackOff',
          container: c.name,
          causeClass: cls,
          cause: `container ${c.name} keeps crashing: ${cause}`,
          evidence: [
            `state.waiting.reason=CrashLoopBackOff`,
            `lastState.terminated.exitCode=${terminated.exitCode ?? 'none'}`,
            `restartCount=${c.restartCount ?? 0}`,
          ],
          detail: { exitCode: terminated.exitCode ?? null, command: spec.command ?? null, image: c.image },
        });
      }
      if (waiting.reason === 'ImagePullBackOff' || waiting.reason === 'ErrImagePull') {
        const [cls, cause] = imagePullCause(waiting.message ?? '');
        add(pod, {
          kind: 'ImagePullBackOff',
          container: c.name,
          causeClass: cls,
          cause: `image ${c.image ?? spec.image}: ${cause}`,
          evidence: [`state.waiting.reason=${waiting.reason}`, String(waiting.message ?? '')],
          detail: { image: c.image ?? spec.image },
        });
      }
      if (waiting.reason === 'CreateContainerConfigError') {
        const [cls, cause, ref] = configCause(waiting.message ?? '');
        add(pod, {
          kind: 'CreateContainerConfigError',
          container: c.name,
          causeClass: cls,
          cause,
          evidence: [`state.waiting.reason=CreateContainerConfigError`, String(waiting.message ?? '')],
          detail: ref,
        });
      }
    }
    const sched = asArray(status.conditions).find((c) => c.type === 'PodScheduled' && c.status === 'False');
    const schedEvents = events.filter((e) => e.involvedObject?.name === name && e.reason === 'FailedScheduling');
    const schedMessage = [sched?.message, ...schedEvents.map((e) => e.message)].filter(Boolean).join(' ');
    if (sched || schedEvents.length) {
      for (const [cls, cause] of schedulingCauses(schedMessage))
        add(pod, {
          kind: 'FailedScheduling',
          container: null,
          causeClass: cls,
          cause,
          evidence: [schedMessage],
          detail: { requests: specs.map((s) => ({ container: s.name, ...(s.resources?.requests ?? {}) })) },
        });
    }
    for (const e of events.filter((e) => e.involvedObject?.name === name)) {
      const message = String(e.message ?? '');
      const probe = /^(Liveness|Readiness|Startup) probe failed/i.exec(message);
      if (e.reason === 'Unhealthy' && probe) {
        const container =
          /spec\.containers\{([^}]+)\}/.exec(e.involvedObject?.fieldPath ?? '')?.[1] ?? specs[0]?.name ?? null;
        add(pod, {
          kind: 'ProbeFailure',
          container,
          causeClass: probe[1]!.toLowerCase(),
          cause: `${probe[1]} probe fails: ${message.replace(/^\w+ probe failed:\s*/i, '').slice(0, 200)}`,
          evidence: [`event Unhealthy x${e.count ?? 1}`, message],
          detail: {
            probe: probe[1]!.toLowerCase(),
            config: allSpecs.find((s) => s.name === container)?.[`${probe[1]!.toLowerCase()}Probe`] ?? null,
          },
        });
      }
      if (e.reason === 'FailedMount' || e.reason === 'FailedAttachVolume') {
        const missing = /(persistentvolumeclaim|configmap|secret) "([^"]+)" not found/i.exec(message);
        add(pod, {
          kind: 'VolumeMountError',
          container: null,
          causeClass: missing
            ? `missing${missing[1]!.toLowerCase()}`
            : e.reason === 'FailedAttachVolume'
              ? 'attach'
              : 'mount',
          cause: missing
            ? `volume source ${missing[1]} ${missing[2]} does not exist`
            : `volume could not be ${e.reason === 'FailedAttachVolume' ? 'attached' : 'mounted'}: ` +
              `${message.slice(0, 200)}`,
          evidence: [`event ${e.reason}`, message],
          detail: missing ? { kind: missing[1]!.toLowerCase(), name: missing[2] } : {},
        });
      }
    }
  }
  return findings;
}

export interface RepairReport {
  verdict: 'healthy' | 'needsApproval' | 'needsInvestigation';
  findings: Finding[];
  remediations: Remediation[];
  approvals: Approval[];
  podsRead: number;
  mutated: false;
}

/** Findings, remediations (proposed patches and dry-run commands) and an approval for every mutating one. */
export function repairReport(pods: Obj[], events: Obj[]): RepairReport {
  const findings = diagnosePods(pods, events);
  const remediations = findings.flatMap(remediate);
  const approvals = remediations
    .filter((r) => r.mutating)
    .map((r) => ({
      findingId: r.findingId,
      action: r.description,
      command: r.dryRunCommand,
      reason:
        `changes ${r.target} in namespace ${r.namespace}: a person approves before anyone runs it without ` +
        `--dry-run`,
    }));
  const verdict = findings.length === 0 ? 'healthy' : approvals.length > 0 ? 'needsApproval' : 'needsInvestigation';
  return { verdict, findings, remediations, approvals, podsRead: pods.length, mutated: false };
}
