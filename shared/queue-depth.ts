import type { Queue } from 'bullmq';
import { isDomain } from './domain-names.js';

/**
 * How many jobs wait in each queue, as the submit path reads it (jobs/orchestrator/backpressure.ts). Counting is a
 * Redis call per shard; the submit path must not pay one per request, so a count is kept and reused for `freshMs`,
 * one refresh in flight per queue is shared by every caller that wants it, and a count a little past its age is
 * answered at once while the refresh runs behind it (a steady stream of submissions never waits on Redis). Between
 * refreshes each run this process enqueues adds one, so a burst inside one interval is counted too.
 */
export class QueueDepths {
  private readonly known = new Map<string, { depth: number; at: number }>();
  private readonly inFlight = new Map<string, Promise<number>>();
  /** Counts taken from Redis, all queues together (test/flows/backpressure.test.ts: the cache holds). */
  refreshes = 0;

  /**
   * `shards`: the queue's handle on every shard it exists on. `waitMs`: how long a caller waits for a count before it
   * goes on with the last one it knows (none: 0).
   */
  constructor(
    private readonly shards: (name: string) => Pick<Queue, 'getJobCountByTypes'>[],
    private readonly waitMs = 500,
  ) {}

  /**
   * The jobs waiting in queue `name` (waiting, prioritized, delayed), counted at most `freshMs` ago. A count Redis
   * does not give (it is away: its commands wait for it, or fail) answers the last one known, or 0: the check fails
   * open, and the run is taken as it was before the check existed (enqueued, or left to the stuck-run sweep).
   */
  async waiting(name: string, freshMs: number, now = Date.now()): Promise<number> {
    const known = this.known.get(name);
    const age = known ? now - known.at : Infinity;
    if (known && age <= freshMs) return known.depth;
    const refresh = this.refresh(name);
    // Up to twice its age the count still says how things stand; beyond, the caller waits for a fresh one.
    if (known && age <= 2 * freshMs) {
      refresh.catch(() => undefined); // the next caller sees the failure; this one has its answer
      return known.depth;
    }
    const fallback = known?.depth ?? 0;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<number>((resolve) => {
      timer = setTimeout(() => resolve(fallback), this.waitMs);
    });
    try {
      return await Promise.race([refresh, late]);
    } catch {
      return fallback;
    } finally {
      clearTimeout(timer);
    }
  }

  /** One more job in queue `name`, enqueued by this process since the last count. */
  added(name: string): void {
    const known = this.known.get(name);
    if (known) known.depth++;
  }

  private refresh(name: string): Promise<number> {
    let pending = this.inFlight.get(name);
    if (!pending) {
      pending = this.count(name).finally(() => this.inFlight.delete(name));
      this.inFlight.set(name, pending);
    }
    return pending;
  }

  private async count(name: string): Promise<number> {
    const at = Date.now();
    this.refreshes++;
    const counts = await Promise.all(
      this.shards(name).map((q) => q.getJobCountByTypes('waiting', 'prioritized', 'delayed')),
    );
    const depth = counts.reduce((a, b) => a + b, 0);
    this.known.set(name, { depth, at });
    return depth;
  }
}

/**
 * QUEUE_DEPTH_MAX_BY_DOMAIN (`hunt=2000,pay=500`) as a map; throws naming what is wrong (an unknown domain, one named
 * twice), so a typo stops the process at start rather than leaving a queue unbounded.
 */
export function depthLimits(spec: string | undefined): Map<string, number> {
  const limits = new Map<string, number>();
  for (const part of (spec ?? '').split(',').filter((p) => p.trim())) {
    const [name, value] = part.split('=').map((s) => s.trim()) as [string, string];
    if (!isDomain(name)) throw new Error(`QUEUE_DEPTH_MAX_BY_DOMAIN names ${name}, which is not a domain`);
    if (limits.has(name)) throw new Error(`QUEUE_DEPTH_MAX_BY_DOMAIN names ${name} twice`);
    limits.set(name, Number(value));
  }
  return limits;
}
