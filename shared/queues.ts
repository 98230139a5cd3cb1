import { FlowProducer, Queue, type ConnectionOptions } from 'bullmq';
import type { RedisClient } from './redis/connection.js';
import { shardOf, shardPrefixes } from './redis/cluster.js';
import { QueueDepths } from './queue-depth.js';

/**
 * The service's own queues: orchestration (finalize), outbox fan-out, webhook
 * delivery, clock ticks, bridge actions (provider calls, apart from the
 * orchestrator's `bridge` step queue), portal actions (headless chromium), pay's provider calls and the inbox's
 * notifications, and delivery's fast follow of a workflow run.
 * Domain queues are named by the domain modules (one queue per domain, named
 * after it), listed in `jobs/registry.ts`.
 */
export const SERVICE_QUEUES = [
  'orchestrator',
  'events',
  'webhooks',
  'clock',
  'bridge-actions',
  'portal-actions',
  'pay-provider',
  'inbox-notify',
  'kubernetes-rollouts',
  'delivery-ci',
] as const;
/** The queue hosted bridge actions run on (and client-hosted ones time out on). */
export const BRIDGE_ACTIONS_QUEUE = 'bridge-actions';
/** The queue pay asks its provider on after commit: a receipt's PaymentIntent, a refund (jobs/pay/confirm.ts). */
export const PAY_PROVIDER_QUEUE = 'pay-provider';
/** The queue portal actions run on: a browser run may take PORTAL_ACTION_TIMEOUT_MS, and delays no provider call. */
export const PORTAL_ACTIONS_QUEUE = 'portal-actions';
/** The queue a repair run's rollout is re-checked on while it rests at `awaitingRollout` (jobs/kubernetes/watch.ts). */
export const KUBERNETES_ROLLOUTS_QUEUE = 'kubernetes-rollouts';
/** Where a delivery's followed workflow run is re-checked, seconds after dispatch (jobs/delivery/ci-follow.ts). */
export const DELIVERY_CI_QUEUE = 'delivery-ci';
export type ServiceQueue = (typeof SERVICE_QUEUES)[number];

/**
 * Lazily created Queue handles plus one FlowProducer, on one connection. A run's step jobs go to one of the queue
 * shards, chosen by its run id (`queueFor`, shared/redis/cluster.ts); every other job goes to shard 0, the configured
 * prefix. A domain's queue therefore exists once per shard, and its workers serve every shard (workers/domains.ts).
 */
export class QueueHub {
  /** The queue prefix of each shard; `prefixes[0]` is QUEUE_PREFIX. */
  readonly prefixes: string[];
  private readonly stepQueues: Set<string>;
  private readonly queues = new Map<string, Queue>();
  private flowProducer?: FlowProducer;
  /** Jobs waiting per queue, counted now and then: what the submit path compares with QUEUE_DEPTH_MAX. */
  readonly depths = new QueueDepths((name) => this.shardsOf(name).map((shard) => this.queue(name, shard)));

  /** `stepQueues`: the queues step jobs use (the domains'), the only ones that exist on every shard. */
  constructor(
    readonly connection: RedisClient,
    readonly prefix: string,
    private readonly onError: (err: Error) => void = () => undefined,
    sharding: { shards: number; stepQueues: readonly string[] } = { shards: 1, stepQueues: [] },
  ) {
    this.prefixes = shardPrefixes(prefix, sharding.shards);
    this.stepQueues = new Set(sharding.stepQueues);
  }

  /** The shards queue `name` exists on: every shard for a step queue, shard 0 for the others. */
  shardsOf(name: string): number[] {
    return this.stepQueues.has(name) ? this.prefixes.map((_, shard) => shard) : [0];
  }

  /** The queue on shard 0 (or on `shard`). */
  queue(name: string, shard = 0): Queue {
    const key = `${shard}:${name}`;
    let q = this.queues.get(key);
    if (!q) {
      const prefix = this.prefixes[shard];
      if (prefix === undefined) throw new Error(`no queue shard ${shard} (QUEUE_SHARDS is ${this.prefixes.length})`);
      q = new Queue(name, { connection: this.connection as unknown as ConnectionOptions, prefix });
      q.on('error', this.onError);
      this.queues.set(key, q);
      // BullMQ keeps a failed start-up for good (every add rejects): a handle whose start failed (a fail-fast
      // connection lost Redis right then, shared/redis/connection.ts) is dropped so the next use makes a new one.
      q.waitUntilReady().catch(() => {
        if (this.queues.get(key) === q) this.queues.delete(key);
      });
    }
    return q;
  }

  /** Where run `runId`'s jobs on step queue `name` go: one shard per run, so its jobs' ids stay unique there. */
  queueFor(name: string, runId: string): Queue {
    return this.queue(name, this.stepQueues.has(name) ? shardOf(runId, this.prefixes.length) : 0);
  }

  /** Handles for the given queue names, on each shard they exist on (Bull Board and the metrics show every queue). */
  all(names: readonly string[]): Array<{ queue: Queue; shard: number }> {
    return names.flatMap((n) => this.shardsOf(n).map((shard) => ({ queue: this.queue(n, shard), shard })));
  }

  flows(): FlowProducer {
    if (!this.flowProducer) {
      this.flowProducer = new FlowProducer({
        connection: this.connection as unknown as ConnectionOptions,
        prefix: this.prefix,
      });
      this.flowProducer.on('error', this.onError);
      // BullMQ adds a 'closing' listener per add in flight; concurrent submits are normal here.
      this.flowProducer.setMaxListeners(1000);
      const made = this.flowProducer;
      made.waitUntilReady().catch(() => {
        if (this.flowProducer === made) this.flowProducer = undefined;
      });
    }
    return this.flowProducer;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    await this.flowProducer?.close();
    this.queues.clear();
    this.flowProducer = undefined;
  }
}
