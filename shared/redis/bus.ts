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
  /** Per channel: its listeners and the SUBSCRIBE they wait for; a channel is dropped with its last listener. */
  private readonly channels = new Map<string, { listeners: Set<Listener>; subscribed: Promise<unknown> }>();

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

  /** Channels this process listens on (each run followed or waited for has one while it is). */
  get size(): number {
    return this.channels.size;
  }

  async publish(name: string, message: unknown): Promise<void> {
    await this.publisher.publish(this.channel(name), JSON.stringify(message));
  }

  /**
   * Messages for several channels sent in one write (a pipeline of PUBLISHes, in order): a socket write is the
   * dearest thing a process does here, and a run's events and its account's note go out together. PUBLISH names no
   * key, so on a Redis Cluster the pipeline goes to any one node, which forwards to every subscriber.
   */
  async publishMany(batch: Array<[name: string, message: unknown]>): Promise<void> {
    if (batch.length === 0) return;
    if (batch.length === 1) return this.publish(batch[0]![0], batch[0]![1]);
    const pipeline = this.publisher.pipeline();
    for (const [name, message] of batch) pipeline.publish(this.channel(name), JSON.stringify(message));
    const failed = (await pipeline.exec())?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  /**
   * Subscribes and resolves once Redis confirms, so nothing published after it is missed. A SUBSCRIBE that fails
   * leaves nothing behind (no listener, no channel), so the next subscriber of the channel sends it again.
   */
  async subscribe(name: string, listener: Listener): Promise<() => Promise<void>> {
    const channel = this.channel(name);
    const sub = this.subscriber();
    let entry = this.channels.get(channel);
    if (!entry) {
      entry = { listeners: new Set(), subscribed: sub.subscribe(channel) };
      this.channels.set(channel, entry);
    }
    const joined = entry;
    joined.listeners.add(listener);
    try {
      await joined.subscribed;
    } catch (err) {
      joined.listeners.delete(listener);
      if (this.channels.get(channel) === joined) this.channels.delete(channel);
      throw err;
    }
    return async () => {
      if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return;
      if (this.channels.get(channel) !== joined) return;
      this.channels.delete(channel);
      await sub.unsubscribe(channel).catch(() => undefined);
    };
  }

  private subscriber(): RedisClient {
    if (!this.sub) {
      this.sub = duplicateClient(this.subscriberOf);
      this.sub.on('error', () => undefined); // reconnects on its own; errors surface on the publisher
      this.sub.on('message', (ch: string, msg: string) => {
        for (const l of this.channels.get(ch)?.listeners ?? []) l(msg);
      });
    }
    return this.sub;
  }

  async close(): Promise<void> {
    this.channels.clear();
    this.sub?.disconnect();
    this.sub = undefined;
  }
}
