/** The SQL statements of the proxy domain on the provider book and its verification history. */
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';
import { json } from './repository.js';

export interface ProviderRow {
  id: string;
  account_id: string;
  name: string;
  phone: string | null;
  identity: string;
  status: string;
  availability: Record<string, unknown> | null;
  verified_at: Date | null;
  verified_by: string | null;
  verified_mission_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The account's provider with this identity, created unverified when the book does not have it yet. */
export async function upsertProvider(
  db: Db,
  p: { id: string; accountId: string; name: string; phone: string | null; identity: string },
): Promise<ProviderRow> {
  const result = await db.raw(
    `INSERT INTO proxy_providers (id, account_id, name, phone, identity) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, identity) DO UPDATE SET phone = coalesce(proxy_providers.phone, excluded.phone),
         updated_at = now()
     RETURNING *`,
    [p.id, p.accountId, p.name, p.phone, p.identity],
  );
  return result.rows[0];
}

export async function getProvider(
  db: Db,
  accountId: string,
  providerId: string,
  forUpdate = false,
): Promise<ProviderRow | null> {
  const q = db('proxy_providers').where({ account_id: accountId, id: providerId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function listProviders(
  db: Db,
  accountId: string,
  filter: { status?: string },
  limit: number,
  cursor?: string,
): Promise<{ rows: ProviderRow[]; nextCursor: string | null }> {
  const q = db('proxy_providers').where({ account_id: accountId });
  if (filter.status) q.andWhere({ status: filter.status });
  return page<ProviderRow>(q, limit, cursor);
}

/** Marks the provider verified by a mission's outcome and appends the verification to its history, in one statement. */
export async function verifyProvider(
  db: Db,
  v: {
    providerId: string;
    accountId: string;
    missionId: string;
    actor: string;
    outcomeStatus: string;
    availability: Record<string, unknown> | null;
  },
): Promise<ProviderRow> {
  const result = await db.raw(
    `WITH verified AS (
       UPDATE proxy_providers SET status = 'verified', availability = ?::jsonb, verified_at = now(),
           verified_by = ?, verified_mission_id = ?, updated_at = now()
       WHERE id = ? AND account_id = ? RETURNING *),
     history AS (
       INSERT INTO proxy_provider_verifications (provider_id, account_id, mission_id, actor, outcome_status,
           availability)
       SELECT id, account_id, ?, ?, ?, ?::jsonb FROM verified)
     SELECT * FROM verified`,
    [
      json(v.availability),
      v.actor,
      v.missionId,
      v.providerId,
      v.accountId,
      v.missionId,
      v.actor,
      v.outcomeStatus,
      json(v.availability),
    ],
  );
  return result.rows[0];
}

export interface VerificationRow {
  mission_id: string;
  actor: string;
  outcome_status: string;
  availability: Record<string, unknown> | null;
  at: Date;
}

/** A provider's verifications, oldest first. */
export async function providerVerifications(db: Db, providerId: string): Promise<VerificationRow[]> {
  return db('proxy_provider_verifications')
    .where({ provider_id: providerId })
    .orderBy('id')
    .select('mission_id', 'actor', 'outcome_status', 'availability', 'at');
}
