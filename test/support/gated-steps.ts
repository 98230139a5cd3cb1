import { registerStepHandler } from '../../jobs/steps.js';
import { until } from './receiver.js';

/**
 * A `resolve` step that, for the accounts in `blocked`, waits until the test lets its run go (`gates`), so which runs
 * hold a place and which are held is decided by the test, never by timing. `release()` lets every step go and
 * unregisters the handler.
 */
export function gateResolveSteps() {
  const blocked = new Set<string>();
  const gates = new Map<string, () => void>();
  const unregister = registerStepHandler('resolve', async (input) => {
    if (blocked.has(input.accountId))
      await new Promise<void>((resolve, reject) => {
        gates.set(input.runId, resolve);
        input.signal.addEventListener('abort', () => reject(input.signal.reason as Error), { once: true });
      });
    return { output: { audited: true }, evidence: [], conversation: ['audited'] };
  });
  return {
    blocked,
    gates,
    /** Resolves once every run of `ids` is running its step. */
    running: (ids: string[]) => until(() => ids.every((id) => gates.has(id)), Boolean),
    release() {
      blocked.clear();
      for (const letGo of gates.values()) letGo();
      unregister();
    },
  };
}
