import type { Db } from './knex.js';

/** One Idempotency-Key as stored: who claimed it, for which request, and what it answered. */
export interface IdempotencyRow {
  account_id: string;
  key: string;
  token_id: string | null;
  request_hash: string;
  claim_id: string | null;
  claimed_until: Date | null;
  status_code: number | null;
  response_body: unknown;
  response_headers: Record<string, string> | null;
  secret_withheld: boolean;
  created_at: Date;
}

// A claim without a lease of its own (written before leases existed) holds for one lease from its creation.
const LEASE_PASSED = 'status_code IS NULL AND coalesce(claimed_until, created_at + make_interval(secs => ?)) < now()';

/**
 * Forgets the key when it is older than `ttlHours`, or when its request
 * never finished and the claim's lease has run out (the process that held
 * it died), so it can be claimed again.
 */
export async function forgetStaleIdempotency(
  db: Db,
  accountId: string,
  key: string,
  ttlHours: number,
  leaseSeconds: number,
): Promise<void> {
  await db('idempotency_keys')
    .where({ account_id: accountId, key })
    .andWhere((q) => {
      q.whereRaw('created_at < now() - make_interval(hours => ?)', [ttlHours]).orWhereRaw(LEASE_PASSED, [leaseSeconds]);
    })
    .delete();
}

/** Inserts a claim on the key unless a row holds it already; true when this call claimed it. */
export async function insertIdempotencyClaim(
  db: Db,
  row: { accountId: string; key: string; tokenId: string; requestHash: string; claimId: string; leaseSeconds: number },
): Promise<boolean> {
  const inserted = await db('idempotency_keys')
    .insert({
      account_id: row.accountId,
      key: row.key,
      token_id: row.tokenId,
      request_hash: row.requestHash,
      claim_id: row.claimId,
      claimed_until: db.raw('now() + make_interval(secs => ?)', [row.leaseSeconds]),
    })
    .onConflict(['account_id', 'key'])
    .ignore()
    .returning('key');
  return inserted.length === 1;
}

export async function getIdempotency(db: Db, accountId: string, key: string): Promise<IdempotencyRow | null> {
  return (await db('idempotency_keys').where({ account_id: accountId, key }).first()) ?? null;
}

/** Extends a running request's claim; false when the claim is no longer this request's. */
export async function renewIdempotencyClaim(
  db: Db,
  accountId: string,
  key: string,
  claimId: string,
  leaseSeconds: number,
): Promise<boolean> {
  const n = await db('idempotency_keys')
    .where({ account_id: accountId, key, claim_id: claimId })
    .whereNull('status_code')
    .update({ claimed_until: db.raw('now() + make_interval(secs => ?)', [leaseSeconds]) });
  return n === 1;
}

/**
 * Records the answer of the claim's request. With `secretWithheld` only the
 * status is kept: the body and headers carried a secret and are not stored.
 */
export async function finishIdempotent(
  db: Db,
  accountId: string,
  key: string,
  claimId: string,
  answer: { status: number; body: unknown; headers: Record<string, string> } | { status: number; secretWithheld: true },
): Promise<void> {
  const withheld = 'secretWithheld' in answer;
  await db('idempotency_keys')
    .where({ account_id: accountId, key, claim_id: claimId })
    .whereNull('status_code')
    .update({
      status_code: answer.status,
      response_body: withheld ? null : JSON.stringify(answer.body),
      response_headers: withheld ? null : JSON.stringify(answer.headers),
      secret_withheld: withheld,
      claimed_until: null,
    });
}

/** Forgets a claim whose request failed or streamed, so the same key can run again. */
export async function abandonIdempotent(db: Db, accountId: string, key: string, claimId: string): Promise<void> {
  await db('idempotency_keys')
    .where({ account_id: accountId, key, claim_id: claimId })
    .whereNull('status_code')
    .delete();
}
