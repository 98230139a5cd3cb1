import type { Deps } from '../../shared/deps.js';

/**
 * The steps running in this process, by run id, so a cancel published on the
 * bus by any API instance aborts them here through their AbortController.
 */
// Keyed by the process's bus, not by the deps object: a job may hand its step a copy of deps (with its own logger).
const registries = new WeakMap<object, { running: Map<string, Set<AbortController>>; ready: Promise<unknown> }>();

function registry(deps: Deps) {
  let reg = registries.get(deps.bus);
  if (!reg) {
    const running = new Map<string, Set<AbortController>>();
    const ready = deps.bus.subscribe('cancel', (msg) => {
      const { runId } = JSON.parse(msg) as { runId: string };
      for (const c of running.get(runId) ?? []) c.abort(new CancelError(runId));
    });
    reg = { running, ready };
    registries.set(deps.bus, reg);
  }
  return reg;
}

export class CancelError extends Error {
  constructor(runId: string) {
    super(`run ${runId} was canceled`);
    this.name = 'CancelError';
  }
}

/** Tracks a controller for `runId` until the returned function is called. */
export async function trackRun(deps: Deps, runId: string, controller: AbortController): Promise<() => void> {
  const reg = registry(deps);
  await reg.ready;
  const set = reg.running.get(runId) ?? new Set();
  set.add(controller);
  reg.running.set(runId, set);
  return () => {
    set.delete(controller);
    if (set.size === 0) reg.running.delete(runId);
  };
}

export async function publishCancel(deps: Pick<Deps, 'bus'>, runId: string): Promise<void> {
  await deps.bus.publish('cancel', { runId });
}
