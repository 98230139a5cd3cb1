import type { KubernetesFailure } from '../../shared/schemas/delivery-ops.js';
import { concrete, containerPath, strategicPatch, type ContainerRef } from './patches.js';

export interface Finding {
  findingId: string;
  kind: KubernetesFailure;
  pod: string;
  namespace: string;
  container: string | null;
  /** Where that container is in the pod spec (init containers included); null for pod-level findings. */
  containerRef: ContainerRef | null;
  /** The workload that owns the pod (`deployment/api`), which a fix patches. */
  workload: string;
  cause: string;
  /** Cause class the remediation is chosen by (`exit127`, `notFound`, `insufficientCpu`, ...). */
  causeClass: string;
  evidence: string[];
  detail: Record<string, unknown>;
}

export interface Remediation {
  findingId: string;
  description: string;
  /** Changes the cluster when run without the dry-run flag; every such step needs an approval. */
  mutating: boolean;
  target: string;
  namespace: string;
  /** A JSON patch (RFC 6902) for the workload, when the fix is one. */
  patch: Array<{ op: string; path: string; value?: unknown }> | null;
  /** The same change as a strategic-merge patch naming the container by name; null when it has none. */
  strategicPatch: Record<string, unknown> | null;
  /** The patch is complete (no `<placeholder>` a person must fill in): it may be dry-run and applied. */
  concrete: boolean;
  /** The command as a dry run: server-side for changes to existing objects, client-side for new ones. */
  dryRunCommand: string | null;
}

export interface Approval {
  findingId: string;
  action: string;
  command: string | null;
  reason: string;
}

/** `512Mi` → `1Gi`: the limit doubled, in the unit it was given in. */
export function doubledQuantity(q: string | null | undefined): string {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|K|M|G|T)?$/.exec(q ?? '');
  if (!m) return '512Mi';
  const n = Number(m[1]) * 2;
  if (m[2] === 'Mi' && n >= 1024 && n % 1024 === 0) return `${n / 1024}Gi`;
  return `${n}${m[2] ?? ''}`;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A pod-level finding (scheduling) is fixed on the container asking the most of the short resource. */
function requestingContainer(f: Finding): ContainerRef | null {
  const resource = f.causeClass === 'insufficientMemory' ? 'memory' : 'cpu';
  const requests = (f.detail.requests ?? []) as Array<Record<string, unknown>>;
  const index = requests.findIndex((r) => r[resource] !== undefined);
  return index >= 0 ? { name: String(requests[index]!.container), init: false, index } : null;
}

/** Remediations for one finding: read-only diagnostics first, then the proposed changes (dry-run only). */
export function remediate(f: Finding): Remediation[] {
  const ns = f.namespace;
  const k = `kubectl -n ${ns}`;
  // Patches address the finding's own container (init containers too) by its index, and by name in strategicPatch.
  const base = { findingId: f.findingId, namespace: ns };
  const read = (description: string, command: string): Remediation => ({
    ...base,
    description,
    mutating: false,
    target: `pod/${f.pod}`,
    patch: null,
    strategicPatch: null,
    concrete: false,
    dryRunCommand: command,
  });
  const change = (
    description: string,
    patch: Remediation['patch'],
    command: string,
    target = f.workload,
  ): Remediation => ({
    ...base,
    description,
    mutating: true,
    target,
    patch,
    strategicPatch: target === f.workload ? strategicPatch(patch, podLevelRef) : null,
    concrete: concrete(patch),
    dryRunCommand: command,
  });
  const patchCmd = (patch: NonNullable<Remediation['patch']>) =>
    `${k} patch ${f.workload} --type=json -p ${q(JSON.stringify(patch))} --dry-run=server -o yaml`;
  const podLevelRef = f.containerRef ?? requestingContainer(f);
  const containerAt = containerPath(podLevelRef);
  switch (f.kind) {
    case 'OOMKilled': {
      const limits = (f.detail.limits ?? {}) as { memory?: string | null };
      const patch = [
        {
          op: limits.memory ? 'replace' : 'add',
          path: `${containerAt}/resources/limits/memory`,
          value: doubledQuantity(limits.memory),
        },
      ];
      return [
        read('Compare memory use with the limit', `${k} top pod ${f.pod} --containers`),
        change(
          `Raise the memory limit of ${f.container} to ${patch[0]!.value} (and look for a leak)`,
          patch,
          patchCmd(patch),
        ),
      ];
    }
    case 'CrashLoopBackOff': {
      const out = [read('Read the logs of the crashed run', `${k} logs ${f.pod} -c ${f.container} --previous`)];
      if (f.causeClass === 'exit127' || f.causeClass === 'exit126')
        out.push(
          read(
            'Check the entrypoint exists in the image',
            `${k} get pod ${f.pod} -o jsonpath='{.spec.containers[?(@.name=="${f.container}")].command}'`,
          ),
        );
      if (f.causeClass === 'exit137' || f.causeClass === 'exit143')
        out.push(read('Check whether a liveness probe kills it', `${k} describe pod ${f.pod}`));
      out.push(
        change(
          `Roll back ${f.workload} to its previous revision while the crash is fixed`,
          null,
          `${k} rollout undo ${f.workload} --dry-run=server`,
        ),
      );
      return out;
    }
    case 'ImagePullBackOff': {
      const image = String(f.detail.image ?? '');
      if (f.causeClass === 'unauthorized') {
        return [
          change(
            'Create a registry pull secret',
            null,
            `${k} create secret docker-registry regcred --docker-server=${image.split('/')[0]} ` +
              `--docker-username=<user> --docker-password=<token> --dry-run=client -o yaml`,
            'secret/regcred',
          ),
          change(
            `Reference it from ${f.workload}`,
            [{ op: 'add', path: '/spec/template/spec/imagePullSecrets', value: [{ name: 'regcred' }] }],
            patchCmd([{ op: 'add', path: '/spec/template/spec/imagePullSecrets', value: [{ name: 'regcred' }] }]),
          ),
        ];
      }
      if (f.causeClass === 'rateLimited')
        return [
          read('Check which nodes pull anonymously', `${k} get events --field-selector involvedObject.name=${f.pod}`),
          change(
            'Authenticate pulls or use a registry mirror (imagePullSecrets), then let the back-off retry',
            [{ op: 'add', path: '/spec/template/spec/imagePullSecrets', value: [{ name: 'regcred' }] }],
            patchCmd([{ op: 'add', path: '/spec/template/spec/imagePullSecrets', value: [{ name: 'regcred' }] }]),
          ),
        ];
      return [
        read('List the tags that exist', `crane ls ${image.split(':')[0]}`),
        change(
          `Point ${f.container} at an image tag that exists (needs the right tag)`,
          [{ op: 'replace', path: `${containerAt}/image`, value: '<existing tag>' }],
          patchCmd([{ op: 'replace', path: `${containerAt}/image`, value: '<existing tag>' }]),
        ),
      ];
    }
    case 'CreateContainerConfigError': {
      const { kind, name, key } = f.detail as { kind?: string; name?: string; key?: string };
      if (!kind || !name) return [read('Read the exact configuration error', `${k} describe pod ${f.pod}`)];
      const create =
        kind === 'secret'
          ? `${k} create secret generic ${name} --from-literal=${key ?? 'KEY'}=<value> --dry-run=client -o yaml`
          : `${k} create configmap ${name} --from-literal=${key ?? 'KEY'}=<value> --dry-run=client -o yaml`;
      return [
        read(`Check what ${kind} ${name} holds`, `${k} get ${kind} ${name} -o yaml`),
        change(
          key ? `Add key ${key} to ${kind} ${name}` : `Create ${kind} ${name}`,
          null,
          key
            ? `${k} patch ${kind} ${name} --type=merge -p ${q(JSON.stringify({ data: { [key]: '<value>' } }))} ` +
                `--dry-run=server`
            : create,
          `${kind}/${name}`,
        ),
      ];
    }
    case 'FailedScheduling': {
      const nodes = read('See what each node has free', `kubectl describe nodes | grep -A5 'Allocated resources'`);
      if (f.causeClass === 'insufficientCpu' || f.causeClass === 'insufficientMemory') {
        const resource = f.causeClass === 'insufficientCpu' ? 'cpu' : 'memory';
        return [
          nodes,
          change(
            `Lower the ${resource} request of ${f.workload} or add nodes (cluster autoscaler / node pool)`,
            [{ op: 'replace', path: `${containerAt}/resources/requests/${resource}`, value: '<lower request>' }],
            patchCmd([
              { op: 'replace', path: `${containerAt}/resources/requests/${resource}`, value: '<lower request>' },
            ]),
          ),
        ];
      }
      if (f.causeClass === 'taint')
        return [
          read('List node taints', `kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints`),
          change(
            'Add a toleration for the taint (or schedule on untainted nodes)',
            [
              {
                op: 'add',
                path: '/spec/template/spec/tolerations/-',
                value: { key: '<taint key>', operator: 'Exists', effect: 'NoSchedule' },
              },
            ],
            patchCmd([
              {
                op: 'add',
                path: '/spec/template/spec/tolerations/-',
                value: { key: '<taint key>', operator: 'Exists', effect: 'NoSchedule' },
              },
            ]),
          ),
        ];
      if (f.causeClass === 'nodeAffinity' || f.causeClass === 'podAffinity')
        return [
          read('Compare node labels with the selector', `kubectl get nodes --show-labels`),
          change(
            'Relax the node selector / affinity to labels that exist',
            [{ op: 'remove', path: '/spec/template/spec/affinity' }],
            patchCmd([{ op: 'remove', path: '/spec/template/spec/affinity' }]),
          ),
        ];
      return [nodes];
    }
    case 'ProbeFailure': {
      const probe = String(f.detail.probe ?? 'readiness');
      const patch = [
        { op: 'add', path: `${containerAt}/${probe}Probe/initialDelaySeconds`, value: 30 },
        { op: 'add', path: `${containerAt}/${probe}Probe/timeoutSeconds`, value: 5 },
      ];
      return [
        read(
          'Call the probe endpoint from inside the pod',
          `${k} exec ${f.pod} -c ${f.container} -- wget -qO- -T 2 localhost:<port><path>`,
        ),
        change(
          `Give the ${probe} probe more start-up time and a longer timeout (if the app is slow, not broken)`,
          patch,
          patchCmd(patch),
        ),
      ];
    }
    case 'Evicted':
      return [
        read('Check node pressure', `kubectl describe node $(${k} get pod ${f.pod} -o jsonpath='{.spec.nodeName}')`),
        change(
          'Delete the evicted pod record (its replacement is already scheduled)',
          null,
          `${k} delete pod ${f.pod} --dry-run=server`,
          `pod/${f.pod}`,
        ),
      ];
    case 'VolumeMountError': {
      const { kind, name } = f.detail as { kind?: string; name?: string };
      if (kind === 'persistentvolumeclaim' && name)
        return [
          read('Check the claim and its storage class', `${k} get pvc ${name} -o yaml`),
          change(
            `Create PersistentVolumeClaim ${name}`,
            null,
            `${k} apply -f pvc-${name}.yaml --dry-run=server`,
            `persistentvolumeclaim/${name}`,
          ),
        ];
      if (kind && name)
        return [
          change(
            `Create ${kind} ${name} the volume refers to`,
            null,
            `${k} create ${kind === 'secret' ? 'secret generic' : 'configmap'} ${name} ` +
              `--from-literal=KEY=<value> --dry-run=client -o yaml`,
            `${kind}/${name}`,
          ),
        ];
      return [read('Read the mount error and the attach state', `${k} describe pod ${f.pod}`)];
    }
  }
}
