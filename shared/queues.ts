import { FlowProducer, Queue, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';

/**
 * The one registry of queue names. Each domain step runs on its domain's
 * queue so `WORKER_QUEUES=hunt,pay` can scale one domain on its own; the
 * service queues carry orchestration, webhook delivery and clock ticks.
 */
export const DOMAIN_QUEUES = [
  'hunt', 'resolve', 'bridge', 'proxy', 'pay',
  'environment', 'cicd', 'kubernetes', 'incident', 'migration', 'security', 'delivery',
] as const;
export const SERVICE_QUEUES = ['orchestrator', 'events', 'webhooks', 'clock'] as const;
export const QUEUE_NAMES = [...DOMAIN_QUEUES, ...SERVICE_QUEUES] as const;

export type DomainName = (typeof DOMAIN_QUEUES)[number];
export type QueueName = (typeof QUEUE_NAMES)[number];

export function isDomain(name: string): name is DomainName {
  return (DOMAIN_QUEUES as readonly string[]).includes(name);
}

/** Lazily created Queue handles plus one FlowProducer, all on one prefix and connection. */
export class QueueHub {
  private readonly queues = new Map<QueueName, Queue>();
  private flowProducer?: FlowProducer;

  constructor(
    readonly connection: Redis,
    readonly prefix: string,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection as unknown as ConnectionOptions, prefix: this.prefix });
      q.on('error', this.onError);
      this.queues.set(name, q);
    }
    return q;
  }

  all(): Queue[] {
    return QUEUE_NAMES.map((n) => this.queue(n));
  }

  flows(): FlowProducer {
    if (!this.flowProducer) {
      this.flowProducer = new FlowProducer({ connection: this.connection as unknown as ConnectionOptions, prefix: this.prefix });
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
