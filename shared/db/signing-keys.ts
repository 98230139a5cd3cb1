import type { Knex } from 'knex';
import type { Db } from './knex.js';

/** The public half of a key as published (RFC 7517 / RFC 8037). */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

export interface SigningKeyRow {
  kid: string;
  public_jwk: PublicJwk;
  /** PKCS8 PEM, stored sealed (shared/vault, platform data key); null when the private half lives in SIGNING_KEY. */
  private_key: string | null;
  source: 'generated' | 'config';
  created_at: Date;
  retired_at: Date | null;
}

export type NewSigningKey = Pick<SigningKeyRow, 'kid' | 'public_jwk' | 'private_key' | 'source'>;

// Serializes key replacements across every process on this database.
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('awp.signing_keys'))";

export async function currentSigningKeyRow(db: Db): Promise<SigningKeyRow | null> {
  return (await db('signing_keys').whereNull('retired_at').first()) ?? null;
}

/**
 * Makes `key` the current key when there is none yet, and returns whichever
 * key is current afterwards. Processes starting together all insert; the
 * partial unique index lets exactly one row win and the others read it.
 */
export async function insertFirstSigningKey(db: Knex, key: NewSigningKey): Promise<SigningKeyRow> {
  return db.transaction(async (trx) => {
    // The lock orders first starts behind any concurrent replacement; the index would refuse a second current row
    // anyway.
    await trx.raw(LOCK);
    await trx.raw(
      `INSERT INTO signing_keys (kid, public_jwk, private_key, source) VALUES (?, ?::jsonb, ?, ?)
       ON CONFLICT ((true)) WHERE retired_at IS NULL DO NOTHING`,
      [key.kid, JSON.stringify(key.public_jwk), key.private_key, key.source],
    );
    return (await currentSigningKeyRow(trx))!;
  });
}

/**
 * Retires the current key and makes `key` current, under an advisory lock.
 * With `ifCurrentIs` (a kid, or null for "none"), nothing changes unless the
 * current key is still that one: of several processes reacting to the same
 * state, the first replaces it and the others adopt its choice. A `key`
 * already stored (a SIGNING_KEY coming back) is made current again.
 */
export async function replaceCurrentSigningKey(
  db: Knex,
  key: NewSigningKey,
  ifCurrentIs?: string | null,
): Promise<SigningKeyRow> {
  return db.transaction(async (trx) => {
    await trx.raw(LOCK);
    const current = await currentSigningKeyRow(trx);
    if (ifCurrentIs !== undefined && current && current.kid !== ifCurrentIs) return current;
    if (current?.kid === key.kid) return current;
    await trx('signing_keys').whereNull('retired_at').update({ retired_at: trx.fn.now() });
    const inserted = await trx.raw(
      `INSERT INTO signing_keys (kid, public_jwk, private_key, source) VALUES (?, ?::jsonb, ?, ?)
       ON CONFLICT (kid) DO UPDATE SET retired_at = NULL RETURNING *`,
      [key.kid, JSON.stringify(key.public_jwk), key.private_key, key.source],
    );
    return inserted.rows[0] as SigningKeyRow;
  });
}

/** Public halves of every key, current first, then retired ones newest first. */
export async function publishedSigningKeys(db: Db): Promise<PublicJwk[]> {
  const rows = await db('signing_keys').select('public_jwk').orderByRaw('retired_at DESC NULLS FIRST, created_at DESC');
  return rows.map((r: { public_jwk: PublicJwk }) => r.public_jwk);
}

export async function publicSigningKey(db: Db, kid: string): Promise<PublicJwk | null> {
  const row = await db('signing_keys').where({ kid }).first('public_jwk');
  return row?.public_jwk ?? null;
}
