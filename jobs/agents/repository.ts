import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

export interface AgentRow {
  id: string;
  account_id: string;
  agent_id: string;
  name: string;
  card: Record<string, unknown>;
  domains: string[];
  capabilities: string[];
  created_at: Date;
  updated_at: Date;
}

const UNIQUE_VIOLATION = '23505';

/** Inserts an agent; null when the account already has one with that agent id. */
export async function insertAgent(db: Db, row: Omit<AgentRow, 'created_at' | 'updated_at'>): Promise<AgentRow | null> {
  try {
    const [created] = await db('agents')
      .insert({ ...row, card: JSON.stringify(row.card) })
      .returning('*');
    return created;
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return null;
    throw err;
  }
}

export async function getAgent(db: Db, accountId: string, agentId: string): Promise<AgentRow | null> {
  return (await db('agents').where({ account_id: accountId, agent_id: agentId }).first()) ?? null;
}

/** The account's agents among `agentIds`. */
export async function agentsNamed(db: Db, accountId: string, agentIds: string[]): Promise<AgentRow[]> {
  if (agentIds.length === 0) return [];
  return db('agents').where({ account_id: accountId }).whereIn('agent_id', agentIds);
}

export async function listAgents(
  db: Db,
  accountId: string,
  filter: { domain?: string; capability?: string },
  limit: number,
  cursor?: string,
): Promise<{ rows: AgentRow[]; nextCursor: string | null }> {
  const q = db('agents').where({ account_id: accountId });
  if (filter.domain) q.andWhereRaw('domains @> ARRAY[?]::text[]', [filter.domain]);
  if (filter.capability) q.andWhereRaw('capabilities @> ARRAY[?]::text[]', [filter.capability]);
  return page<AgentRow>(q, limit, cursor);
}

/** The account's agents a match considers (those serving `domain`, when given), newest first, at most `max`. */
export async function candidateAgents(
  db: Db,
  accountId: string,
  domain: string | undefined,
  max: number,
): Promise<AgentRow[]> {
  const q = db('agents').where({ account_id: accountId });
  if (domain) q.andWhereRaw('domains @> ARRAY[?]::text[]', [domain]);
  return q.orderBy('id', 'desc').limit(max);
}
