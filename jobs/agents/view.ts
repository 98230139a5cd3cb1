import { iso } from '../../shared/db/knex.js';
import type { AgentRow } from './repository.js';
import type { AgentProfile, Skill } from './logic.js';

interface StoredCard {
  name?: string;
  description?: string;
  supportedInterfaces?: Array<{ url?: string }>;
  skills?: Skill[];
  capabilities?: { streaming?: boolean; pushNotifications?: boolean };
}

/** What matching reads of a registered agent. */
export function profileOf(row: Pick<AgentRow, 'agent_id' | 'domains' | 'card'>): AgentProfile {
  const card = row.card as StoredCard;
  return { agentId: row.agent_id, domains: row.domains, skills: card.skills ?? [], features: card.capabilities ?? {} };
}

export function agentView(row: AgentRow) {
  const card = row.card as StoredCard;
  return {
    agentId: row.agent_id,
    name: row.name,
    description: card.description ?? '',
    url: card.supportedInterfaces?.[0]?.url ?? null,
    domains: row.domains,
    capabilities: row.capabilities,
    card: row.card,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
