import { FlowProducer, Queue, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';

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

/** Lazily created Queue handles plus one FlowProducer, all on one prefix and connection. */
export class QueueHub {
  private readonly queues = new Map<string, Queue>();
  private flowProducer?: FlowProducer;

  constructor(
    readonly connection: Redis,
    readonly prefix: string,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection as unknown as ConnectionOptions, prefix: this.prefix });
      q.on('error', this.onError);
      this.queues.set(name, q);
    }
    return q;
  }

  /** Handles for the given queue names (Bull Board shows every queue of the registry). */
  all(names: readonly string[]): Queue[] {
    return names.map((n) => this.queue(n));
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
