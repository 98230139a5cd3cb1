import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { newId } from '../ids.js';
import { rememberSecret } from '../secrets.js';
import { RecentMap } from '../recent-map.js';
import {
  dataKeyById,
  dataKeyOfOwner,
  insertDataKey,
  lockAllDataKeys,
  rewrapDataKey,
  wrappedByAnotherMaster,
} from './data-keys.js';
import {
  isSealed,
  masterKeyId,
  newDataKey,
  openWith,
  parseMasterKey,
  sealedKeyId,
  sealWith,
  unwrapDataKey,
  VaultError,
  wrapDataKey,
  wrappedBy,
} from './envelope.js';

/**
 * Envelope encryption at rest. Each owner (an account id, or PLATFORM for
 * the service's own secrets) has one AES-256 data key, stored wrapped by the
 * master key (AWP_MASTER_KEY) and cached unwrapped in this process. Values
 * are sealed with their owner's key; a sealed value names its key, so
 * opening needs no owner. `db` may be a transaction (a receipt signed in
 * the settlement's transaction): which data key an owner has is then not
 * cached, since a key created inside a transaction that rolls back would be
 * cached here yet missing from the table. Unwrapped keys are cached by their
 * random id, which nothing committed names unless the key row committed too.
 */

export { isSealed, VaultError } from './envelope.js';
export const PLATFORM = 'platform';

export interface VaultDeps {
  db: Knex;
  config: Pick<Config, 'AWP_MASTER_KEY' | 'AWP_MASTER_KEY_PREVIOUS'>;
}

// Data key ids are unique across databases (random ids), so unwrapped keys are cached by id; which key an owner
// has depends on the database, so that cache is per knex instance (tests use several databases in one process).
// There is one data key per account: both caches keep the most recently used (a forgotten key costs one read and
// one unwrap on next use), so a long-running process does not hold one entry for every account it ever served.
export const DATA_KEYS_CACHED = 10_000;
let unwrapped = new RecentMap<string, Buffer>(DATA_KEYS_CACHED);
let ownerKeys = new WeakMap<Knex, RecentMap<string, string>>();

/** How many data keys and owners this process holds (tests of the bound). */
export function cachedDataKeys(db: Knex): { keys: number; owners: number } {
  return { keys: unwrapped.size, owners: ownerKeys.get(db)?.size ?? 0 };
}

function ownersOf(db: Knex): RecentMap<string, string> {
  let owners = ownerKeys.get(db);
  if (!owners) ownerKeys.set(db, (owners = new RecentMap(unwrapped.max)));
  return owners;
}

/** The configured master keys by id: the current one first, then the previous one (during a rotation). */
function masterKeys(config: VaultDeps['config']): Map<string, Buffer> {
  if (!config.AWP_MASTER_KEY) {
    throw new VaultError('AWP_MASTER_KEY is not set: secrets cannot be sealed or opened (npm start makes one locally)');
  }
  const keys = new Map<string, Buffer>();
  for (const b64 of [config.AWP_MASTER_KEY, config.AWP_MASTER_KEY_PREVIOUS]) {
    if (!b64) continue;
    rememberSecret(b64, 'lasting');
    const key = parseMasterKey(b64);
    keys.set(masterKeyId(key), key);
  }
  return keys;
}

const inTransaction = (db: Knex) => Boolean((db as Knex & { isTransaction?: boolean }).isTransaction);

async function keyById(deps: VaultDeps, id: string): Promise<Buffer> {
  const cached = unwrapped.get(id);
  if (cached) return cached;
  const row = await dataKeyById(deps.db, id);
  if (!row) throw new VaultError(`data key ${id} does not exist`);
  const master = masterKeys(deps.config).get(wrappedBy(row.wrapped));
  if (!master) {
    throw new VaultError(`data key ${id} is wrapped by master key ${row.master_key_id}, which this process lacks`);
  }
  const key = unwrapDataKey(master, id, row.wrapped);
  unwrapped.set(id, key);
  return key;
}

async function keyOfOwner(deps: VaultDeps, owner: string): Promise<{ id: string; key: Buffer }> {
  const known = ownersOf(deps.db).get(owner);
  if (known) return { id: known, key: await keyById(deps, known) };
  let row = await dataKeyOfOwner(deps.db, owner);
  if (!row) {
    const [[id, master]] = [...masterKeys(deps.config)] as [[string, Buffer]];
    // A process still on a retired master key must not wrap a new data key with it: once that key is dropped,
    // whatever the new data key sealed could never be opened again.
    if (await wrappedByAnotherMaster(deps.db, id)) {
      throw new VaultError("this process's AWP_MASTER_KEY is not the one the data keys are wrapped by");
    }
    const dkId = newId('dk');
    const fresh = newDataKey(master, dkId);
    row = await insertDataKey(deps.db, { id: dkId, owner, wrapped: fresh.wrapped, master_key_id: id });
    if (row.id === dkId) unwrapped.set(dkId, fresh.key);
  }
  if (!inTransaction(deps.db)) ownersOf(deps.db).set(owner, row.id);
  return { id: row.id, key: await keyById(deps, row.id) };
}

/** `plaintext` sealed under the owner's data key (created on first use). */
export async function seal(deps: VaultDeps, owner: string, plaintext: string): Promise<string> {
  const { id, key } = await keyOfOwner(deps, owner);
  return sealWith(key, id, plaintext);
}

/** The plaintext of a sealed value; remembered for redaction, so it is masked if it strays into a log line or error. */
export async function open(deps: VaultDeps, sealed: string): Promise<string> {
  const value = openWith(await keyById(deps, sealedKeyId(sealed)), sealed);
  rememberSecret(value);
  return value;
}

/**
 * A stored secret column: sealed values are opened; a plaintext one (a row
 * written before issue 26 that the start-up backfill has not sealed yet)
 * passes through as it is. null stays null.
 */
export async function openStored(deps: VaultDeps, stored: string | null): Promise<string | null> {
  if (stored == null) return null;
  return isSealed(stored) ? open(deps, stored) : stored;
}

/**
 * Forgets every unwrapped data key of this process (after a master key rotation; tests); from then on the caches
 * hold at most `max` keys and owners (tests of the bound pass a small one).
 */
export function forgetDataKeys(max = DATA_KEYS_CACHED): void {
  unwrapped = new RecentMap(max);
  ownerKeys = new WeakMap();
}

/**
 * Re-wraps every data key from `from` to `to` in one transaction; sealed
 * values are untouched (their data keys do not change). Keys already wrapped
 * by `to` are left alone, so running it twice is harmless.
 */
export async function rotateMasterKey(
  db: Knex,
  from: string,
  to: string,
): Promise<{ rewrapped: number; masterKeyId: string }> {
  const old = parseMasterKey(from);
  const next = parseMasterKey(to);
  const nextId = masterKeyId(next);
  return db.transaction(async (trx) => {
    let rewrapped = 0;
    for (const row of await lockAllDataKeys(trx)) {
      const by = wrappedBy(row.wrapped);
      if (by === nextId) continue;
      if (by !== masterKeyId(old)) {
        throw new VaultError(`data key ${row.id} is wrapped by master key ${by}, neither the current nor the new one`);
      }
      await rewrapDataKey(trx, row.id, wrapDataKey(next, row.id, unwrapDataKey(old, row.id, row.wrapped)), nextId);
      rewrapped += 1;
    }
    return { rewrapped, masterKeyId: nextId };
  });
}
