import { FlowProducer, Queue, type ConnectionOptions, type FlowJob, type JobNode } from 'bullmq';
import type { RedisClient } from './redis/connection.js';
import { shardOf, shardPrefixes } from './redis/cluster.js';

/**
 * The service's own queues: orchestration (finalize), outbox fan-out, webhook
 * delivery, clock ticks and bridge actions (provider calls, apart from the
 * orchestrator's `bridge` step queue). Domain queues are named by the domain modules
 * (one queue per domain, named after it), listed in `jobs/registry.ts`.
 */
export const SERVICE_QUEUES = ['orchestrator', 'events', 'webhooks', 'clock', 'bridge-actions'] as const;
/** The queue hosted bridge actions run on (and client-hosted ones time out on). */
export const BRIDGE_ACTIONS_QUEUE = 'bridge-actions';
export type ServiceQueue = (typeof SERVICE_QUEUES)[number];

/** What adds a flow: one FlowProducer, or the shards' (`QueueHub.flows`). */
export interface FlowAdder {
  add(flow: FlowJob): Promise<JobNode>;
}

/**
 * Lazily created Queue handles and FlowProducers on one connection. Flows (a run segment's steps) go to one of the
 * queue shards, chosen by their root job's id (shared/redis/cluster.ts); every other job goes to shard 0, the
 * configured prefix. A queue a flow uses therefore exists once per shard, and its workers serve every shard
 * (workers/domains.ts).
 */
export class QueueHub {
  /** The queue prefix of each shard; `prefixes[0]` is QUEUE_PREFIX. */
  readonly prefixes: string[];
  private readonly flowQueues: Set<string>;
  private readonly queues = new Map<string, Queue>();
  private readonly producers = new Map<number, FlowProducer>();
  private readonly router: FlowAdder = {
    add: (flow) => this.producer(shardOf(flow.opts?.jobId ?? flow.name, this.prefixes.length)).add(flow),
  };

  /**
   * `flowQueues`: the queues flows use (the domains'), the only ones that exist on every shard; `shards`:
   * QUEUE_SHARDS.
   */
  constructor(
    readonly connection: RedisClient,
    readonly prefix: string,
    private readonly onError: (err: Error) => void = () => undefined,
    sharding: { shards: number; flowQueues: readonly string[] } = { shards: 1, flowQueues: [] },
  ) {
    this.prefixes = shardPrefixes(prefix, sharding.shards);
    this.flowQueues = new Set(sharding.flowQueues);
  }

  /** The shards queue `name` exists on: every shard for a queue flows use, shard 0 for the others. */
  shardsOf(name: string): number[] {
    return this.flowQueues.has(name) ? this.prefixes.map((_, shard) => shard) : [0];
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
    }
    return q;
  }

  /** Handles for the given queue names, on each shard they exist on (Bull Board and the metrics show every queue). */
  all(names: readonly string[]): Array<{ queue: Queue; shard: number }> {
    return names.flatMap((n) => this.shardsOf(n).map((shard) => ({ queue: this.queue(n, shard), shard })));
  }

  /** Adds a flow to its shard. */
  flows(): FlowAdder {
    return this.router;
  }

  private producer(shard: number): FlowProducer {
    let producer = this.producers.get(shard);
    if (!producer) {
      producer = new FlowProducer({
        connection: this.connection as unknown as ConnectionOptions,
        prefix: this.prefixes[shard]!,
      });
      producer.on('error', this.onError);
      // BullMQ adds a 'closing' listener per add in flight; concurrent submits are normal here.
      producer.setMaxListeners(1000);
      this.producers.set(shard, producer);
    }
    return producer;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    await Promise.all([...this.producers.values()].map((p) => p.close()));
    this.queues.clear();
    this.producers.clear();
  }
}
