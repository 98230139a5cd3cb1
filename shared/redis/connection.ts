import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** The service reads replies in ioredis's default (legacy) shape, the one `AwpRedis` is typed with. */
type LegacyOptions = RedisOptions & { replyMapping?: 'legacy' };

/** The ioredis internals `AwpRedis` needs; they exist at runtime but are private in its types. */
interface RedisInternals {
  stream?: { destroyed: boolean };
  reconnectTimeout: NodeJS.Timeout | null;
  prevCommandQueue?: { length: number; shift(): { command: { reject(err: Error): void } } | undefined } | null;
  setStatus(status: string): void;
  flushQueue(err: Error): void;
}

/**
 * An ioredis client whose `disconnect()` always ends it, at once.
 *
 * ioredis (6.0.0) ends a client through the socket's `close` event. A client
 * in `reconnecting` has no socket (only a retry timer): `disconnect()` clears
 * the timer and asks the connector to close a socket that is already gone, so
 * no `close` event ever comes. The client stays `reconnecting` forever, never
 * emits `end`, and its queued commands never settle. BullMQ's `Worker.close()`
 * disconnects its blocking connection and waits for `end`, so a SIGTERM that
 * lands while Redis is down or restarting (the workers backing off between
 * reconnects) hung shutdown for good (bullmq#4656, ioredis side in bullmq#4585).
 * Here a socketless disconnect cancels the retry and finishes the way ioredis
 * finishes one for a client that never connected (status `wait`): status
 * `end`, queued commands rejected with "Connection is closed.".
 *
 * `duplicate()` is overridden because ioredis builds copies with its own class,
 * and BullMQ duplicates the connection it is given for every worker.
 */
export class AwpRedis extends Redis {
  /** Copies made by `duplicate()`: BullMQ's per-worker connections, the bus subscriber. */
  readonly copies = new Set<AwpRedis>();

  override disconnect(reconnect = false): void {
    const client = this as unknown as RedisInternals;
    // Not super.disconnect() on a client whose socket is gone: asking the connector
    // to close it again arms a 2 s timer for a close event that never comes,
    // which keeps a stopping process alive for nothing.
    if (!reconnect && this.status === 'end' && (client.stream?.destroyed ?? true)) return;
    if (reconnect || this.status !== 'reconnecting') return super.disconnect(reconnect);
    if (client.reconnectTimeout) clearTimeout(client.reconnectTimeout);
    client.reconnectTimeout = null;
    endSocketless(client);
  }
}

// On the prototype, not in the class body: ioredis types `duplicate` with a generic reply mapping a subclass cannot
// restate.
AwpRedis.prototype.duplicate = function duplicate(this: AwpRedis, override?: Partial<RedisOptions>) {
  const copy = new AwpRedis({ ...this.options, ...(override ?? {}) } as LegacyOptions);
  this.copies.add(copy); // only made when a worker or the bus starts, so the set stays small
  return copy;
} as unknown as Redis['duplicate'];

function endSocketless(client: RedisInternals): void {
  const closed = new Error('Connection is closed.');
  client.setStatus('end');
  client.flushQueue(closed);
  // Commands that were in flight when the socket dropped wait here to be re-sent on reconnect; there will be none.
  const prev = client.prevCommandQueue;
  for (let item = prev?.shift(); item; item = prev?.shift()) item.command.reject(closed);
  client.prevCommandQueue = null;
}

/** The service's Redis: one server (REDIS_URL), or a Redis Cluster (REDIS_CLUSTER_NODES; shared/redis/cluster.ts). */
export type RedisClient = Redis | Cluster;

/** A new connection like `client` (a subscriber, say): the two classes take different arguments. */
export function duplicateClient(client: RedisClient): RedisClient {
  return client instanceof Cluster ? client.duplicate() : client.duplicate();
}

/**
 * The copies `redis` has made so far (none when it is not an `AwpRedis`: a cluster client's copies end through
 * ioredis's own `disconnect()`).
 */
export function copiesOf(redis: RedisClient): AwpRedis[] {
  return redis instanceof AwpRedis ? [...redis.copies] : [];
}

/**
 * Ends the given clients: all of them, or those not connected. Why from
 * outside BullMQ: its `RedisConnection.disconnect()` first awaits the
 * connection's start-up, which waits for `ready`; a worker whose blocking
 * connection lost Redis before it was ready never gets there, so its
 * `close()` never finishes (bullmq#4656). Ending the client settles that
 * start-up and the close goes on. A client that is not connected has
 * nothing in flight, so ending it at shutdown loses nothing.
 */
export function endClients(clients: RedisClient[], which: 'notReady' | 'all'): void {
  for (const client of clients) if (which === 'all' || client.status !== 'ready') client.disconnect();
}

/**
 * Calls `listener` each time `client` is ready again after it lost its
 * connection (not at its first ready): what Redis held may be gone with it
 * (a restart without persistence, a failover to a replica that lacked it).
 * Returns the function that stops listening.
 */
export function onReconnect(client: RedisClient, listener: () => void): () => void {
  let ready = client.status === 'ready';
  let lost = false;
  const onReady = () => {
    if (ready && lost) listener();
    ready = true;
    lost = false;
  };
  const onLost = () => {
    lost = ready;
  };
  client.on('ready', onReady);
  client.on('close', onLost);
  return () => {
    client.off('ready', onReady);
    client.off('close', onLost);
  };
}

/** Resolves once `client` is ready, or after `ms` (false then): for a start that should not wait on Redis for good. */
export function readyWithin(client: RedisClient, ms: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    timer.unref();
    client.on('ready', onReady);
  });
}

/** How long a request's Redis command may take before it fails (a Redis that hangs rather than refuses). */
export const REQUEST_COMMAND_TIMEOUT_MS = 1500;

/**
 * A connection like `client` for the request path, which fails fast instead
 * of waiting for Redis: no offline queue (a command while it is not
 * connected fails at once), commands in flight when the connection drops
 * fail at once (`maxRetriesPerRequest: 0`) and none waits more than
 * REQUEST_COMMAND_TIMEOUT_MS for its answer. It reconnects on its own like
 * any client. Workers keep the patient `client` (offline queue, retries
 * without limit): their work waits an outage out, a request answers 503.
 */
export function failFastClient(client: RedisClient): RedisClient {
  const fast = { maxRetriesPerRequest: 0, commandTimeout: REQUEST_COMMAND_TIMEOUT_MS };
  if (client instanceof Cluster)
    return client.duplicate(undefined, {
      enableOfflineQueue: false,
      redisOptions: { ...client.options.redisOptions, ...fast },
    });
  // Not `duplicate()`: that records the copy as a worker's (copiesOf), and this one belongs to the web.
  return new AwpRedis({ ...client.options, ...fast, enableOfflineQueue: false } as LegacyOptions);
}

/**
 * A Redis connection. BullMQ needs `maxRetriesPerRequest: null` on connections
 * that block (workers, queue events); using it everywhere keeps one shape.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new AwpRedis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    lazyConnect: false,
    ...options,
  } as LegacyOptions);
}

export type { Redis };
