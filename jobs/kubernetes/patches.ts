/**
 * Where a finding's container lives in the workload's pod template, and the fixes as patches the API server takes:
 * a JSON patch (RFC 6902) addressing the container by its index, and the same change as a strategic-merge patch
 * naming the container by `name` (the merge key of `containers` and `initContainers`), which stays right when the
 * template's order differs from the pod's. Pure.
 */

type Obj = Record<string, any>;
export type JsonPatch = Array<{ op: string; path: string; value?: unknown }>;

/** A container of the pod (or its template): its list, its index there, its name. */
export interface ContainerRef {
  name: string;
  init: boolean;
  index: number;
}

const asArray = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);

/** The container named `name` in a pod spec, init containers first (their statuses come first too). */
export function locateContainer(podSpec: Obj | undefined, name: string | null | undefined): ContainerRef | null {
  if (!name) return null;
  const init = asArray(podSpec?.initContainers).findIndex((c) => c.name === name);
  if (init >= 0) return { name, init: true, index: init };
  const main = asArray(podSpec?.containers).findIndex((c) => c.name === name);
  return main >= 0 ? { name, init: false, index: main } : null;
}

/** `/spec/template/spec/containers/1`: the container's path in the workload's template. */
export function containerPath(ref: ContainerRef | null): string {
  return `/spec/template/spec/${ref?.init ? 'initContainers' : 'containers'}/${ref?.index ?? 0}`;
}

/** Placeholders (`<existing tag>`) mark a fix a person must complete: such a patch is never sent. */
export function concrete(patch: JsonPatch | null): boolean {
  return Boolean(patch) && !JSON.stringify(patch).includes('<');
}

const unescape = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

function setIn(target: Obj, keys: string[], value: unknown): void {
  let at = target;
  for (const k of keys.slice(0, -1)) at = at[k] && typeof at[k] === 'object' ? at[k] : (at[k] = {});
  at[keys[keys.length - 1]!] = value;
}

/**
 * The JSON patch as a strategic-merge patch for a Deployment, or null when it has no such form: an append to a list
 * without a merge key (`tolerations/-`) or a path outside the pod template. `remove` becomes `null` (delete the field).
 */
export function strategicPatch(patch: JsonPatch | null, ref: ContainerRef | null): Obj | null {
  if (!patch || patch.length === 0) return null;
  const podSpec: Obj = {};
  const container: Obj = {};
  for (const op of patch) {
    if (!['add', 'replace', 'remove'].includes(op.op)) return null;
    const parts = op.path.split('/').slice(1).map(unescape);
    if (parts.slice(0, 3).join('/') !== 'spec/template/spec' || parts.includes('-')) return null;
    const rest = parts.slice(3);
    const value = op.op === 'remove' ? null : op.value;
    if (rest[0] === 'containers' || rest[0] === 'initContainers') {
      if (!ref || rest.length < 3 || Number(rest[1]) !== ref.index || (rest[0] === 'initContainers') !== ref.init)
        return null;
      setIn(container, rest.slice(2), value);
    } else if (rest.length > 0) setIn(podSpec, rest, value);
    else return null;
  }
  if (Object.keys(container).length > 0)
    podSpec[ref!.init ? 'initContainers' : 'containers'] = [{ name: ref!.name, ...container }];
  return { spec: { template: { spec: podSpec } } };
}

/**
 * An RFC 7386 merge patch that turns `from` into `to`: changed and new fields set, fields `to` lacks set to null.
 * Lists are replaced whole (merge patch has no list merge), which is what a rollback to a template wants.
 */
export function mergePatchFrom(from: unknown, to: unknown): unknown {
  const isObj = (v: unknown): v is Obj => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
  if (!isObj(from) || !isObj(to)) return to;
  const out: Obj = {};
  for (const [k, v] of Object.entries(to)) {
    if (JSON.stringify(from[k]) === JSON.stringify(v)) continue;
    out[k] = isObj(v) && isObj(from[k]) ? mergePatchFrom(from[k], v) : v;
  }
  for (const k of Object.keys(from)) if (!(k in to)) out[k] = null;
  return out;
}
