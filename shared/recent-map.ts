/**
 * A Map that keeps at most `max` entries, forgetting the one used least
 * recently when a new one would exceed it. For process caches whose keys grow
 * with accounts, tokens or secrets (a long-running process would otherwise
 * keep one entry per key it ever saw): what it forgets is read again on next
 * use. A Map iterates in insertion order, and `get` and `set` re-insert, so
 * the first key is always the least recently used.
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`RecentMap needs a positive whole max (got ${max})`);
  }

  /** A map of at most `max` entries holding this one's most recent. */
  resized(max: number): RecentMap<K, V> {
    const next = new RecentMap<K, V>(max);
    for (const [k, v] of this.entries) next.set(k, v);
    return next;
  }

  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets `key` as the most recent entry; returns the keys it pushed out (none until the map is full). */
  set(key: K, value: V): K[] {
    this.entries.delete(key);
    this.entries.set(key, value);
    const evicted: K[] = [];
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
      evicted.push(oldest);
    }
    return evicted;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  keys(): IterableIterator<K> {
    return this.entries.keys();
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries[Symbol.iterator]();
  }
}
