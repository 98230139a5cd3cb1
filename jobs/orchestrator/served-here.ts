/**
 * The domain queues this process has workers for, by queue prefix
 * (workers/domains.ts `startWorkers` records them). A step job runs the
 * segment's next step in the same job when its domain is served here, and
 * hands the run to that domain's queue otherwise, so `WORKER_QUEUES` keeps
 * scaling per domain.
 */
const SLOT = Symbol.for('awp.servedHere');
const holder = globalThis as { [SLOT]?: Map<string, Set<string>> };
const served = (prefix: string) => {
  const all = (holder[SLOT] ??= new Map());
  let queues = all.get(prefix);
  if (!queues) all.set(prefix, (queues = new Set()));
  return queues;
};

/** Records queues this process's workers serve under `prefix`; returns a function that forgets them. */
export function markServed(prefix: string, queues: readonly string[]): () => void {
  const added = queues.filter((q) => !served(prefix).has(q));
  for (const q of added) served(prefix).add(q);
  return () => {
    for (const q of added) served(prefix).delete(q);
  };
}

/** Whether a worker of this process takes jobs of `queue` under `prefix`. */
export function servedHere(prefix: string, queue: string): boolean {
  return served(prefix).has(queue);
}
