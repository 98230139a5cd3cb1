import type { Db } from './knex.js';

export type IdempotencyStart =
  | { kind: 'new' }
  | { kind: 'replay'; status: number; body: unknown; headers: Record<string, string> }
  | { kind: 'mismatch' }
  | { kind: 'inProgress' };

/**
 * Claims `key` for this request, or reports what the first request with the
 * key did. Keys older than `ttlHours` are forgotten and claimable again.
 */
export async function startIdempotent(db: Db, accountId: string, key: string, requestHash: string, ttlHours: number): Promise<IdempotencyStart> {
  await db('idempotency_keys')
    .where({ account_id: accountId, key })
    .andWhereRaw(`created_at < now() - make_interval(hours => ?)`, [ttlHours])
    .delete();
  const inserted = await db('idempotency_keys')
    .insert({ account_id: accountId, key, request_hash: requestHash })
    .onConflict(['account_id', 'key'])
    .ignore()
    .returning('key');
  if (inserted.length === 1) return { kind: 'new' };
  const row = await db('idempotency_keys').where({ account_id: accountId, key }).first();
  if (!row) return startIdempotent(db, accountId, key, requestHash, ttlHours);
  if (row.request_hash !== requestHash) return { kind: 'mismatch' };
  if (row.status_code == null) return { kind: 'inProgress' };
  return { kind: 'replay', status: row.status_code, body: row.response_body, headers: row.response_headers ?? {} };
}

export async function finishIdempotent(db: Db, accountId: string, key: string, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
  await db('idempotency_keys')
    .where({ account_id: accountId, key })
    .update({ status_code: status, response_body: JSON.stringify(body), response_headers: JSON.stringify(headers) });
}

/** Forgets a key whose request failed, so the client can retry with the same key. */
export async function abandonIdempotent(db: Db, accountId: string, key: string): Promise<void> {
  await db('idempotency_keys').where({ account_id: accountId, key }).whereNull('status_code').delete();
}

export async function purgeExpiredIdempotency(db: Db, ttlHours: number): Promise<number> {
  return db('idempotency_keys').whereRaw(`created_at < now() - make_interval(hours => ?)`, [ttlHours]).delete();
}
