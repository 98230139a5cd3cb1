import { duplicateClient, type RedisClient } from './connection.js';

type Listener = (message: string) => void;

/**
 * Redis pub/sub fan-out for one process: a single subscriber connection,
 * channels subscribed on first listener and dropped after the last. Live run
 * events and cancel signals travel here; Postgres stays the record, so a
 * missed message costs latency, never data. On a Redis Cluster these are
 * classic (not sharded) channels: a message published on any node reaches
 * subscribers on every node.
 */
export class Bus {
  private sub?: RedisClient;
  private readonly listeners = new Map<string, Set<Listener>>();

  /**
   * `subscriberOf`: the client the subscriber connection copies (the publisher by default). The web's bus publishes
   * on a fail-fast client but subscribes through a patient one (shared/deps.ts `requestDeps`): a subscription is
   * long-lived and must wait for Redis, where a publish on a request must not.
   */
  constructor(
    private readonly publisher: RedisClient,
    readonly prefix: string,
    private readonly subscriberOf: RedisClient = publisher,
  ) {}

  channel(name: string): string {
    return `${this.prefix}:bus:${name}`;
  }

  async publish(name: string, message: unknown): Promise<void> {
    await this.publisher.publish(this.channel(name), JSON.stringify(message));
  }

  /**
   * Several messages on one channel as one message (a JSON array, in order): one PUBLISH per batch, however many events
   * it carries.
   */
  async publishAll(name: string, messages: unknown[]): Promise<void> {
    if (messages.length === 0) return;
    await this.publish(name, messages);
  }

  /** Subscribes and resolves once Redis confirms, so nothing published after it is missed. */
  async subscribe(name: string, listener: Listener): Promise<() => Promise<void>> {
    const channel = this.channel(name);
    if (!this.sub) {
      this.sub = duplicateClient(this.subscriberOf);
      this.sub.on('error', () => undefined); // reconnects on its own; errors surface on the publisher
      this.sub.on('message', (ch: string, msg: string) => {
        for (const l of this.listeners.get(ch) ?? []) l(msg);
      });
    }
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.sub.subscribe(channel);
    }
    set.add(listener);
    return async () => {
      const current = this.listeners.get(channel);
      current?.delete(listener);
      if (current && current.size === 0) {
        this.listeners.delete(channel);
        await this.sub?.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.sub?.disconnect();
    this.sub = undefined;
  }
}
