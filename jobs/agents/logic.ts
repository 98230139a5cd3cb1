/**
 * Matching registered agents to work: pure, over what a card says. An
 * agent's capabilities are its skills (id, name, tags) and the protocol
 * features its card declares (streaming, pushNotifications).
 */

export interface Skill {
  id: string;
  name?: string;
  description?: string;
  tags?: string[];
}

export interface AgentProfile {
  agentId: string;
  domains: string[];
  skills: Skill[];
  features: { streaming?: boolean; pushNotifications?: boolean };
}

export interface Match {
  agentId: string;
  score: number;
  reasons: string[];
  missing: string[];
}

/** `Catalog Search` and `catalog_search` are the same capability: lower case, words joined by `-`. */
export function term(text: string): string {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join('-');
}

const words = (text: string | undefined) =>
  new Set(
    (text ?? '')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
  );
const FEATURES = ['streaming', 'pushNotifications'] as const;

/** Every term an agent answers to: skill ids, names and tags, and the features its card turns on. */
export function capabilityTerms(agent: Pick<AgentProfile, 'skills' | 'features'>): string[] {
  const terms = agent.skills
    .flatMap((s) => [s.id, s.name ?? '', ...(s.tags ?? [])])
    .map(term)
    .filter(Boolean);
  for (const f of FEATURES) if (agent.features[f]) terms.push(term(f));
  return [...new Set(terms)];
}

/**
 * How well one skill covers a wanted capability: 1 when it is named so, 0.5 when all its words occur in the skill, else
 * 0.
 */
function cover(skill: Skill, wanted: string): number {
  if ([skill.id, skill.name ?? '', ...(skill.tags ?? [])].some((t) => term(t) === wanted)) return 1;
  const text = words([skill.id, skill.name, skill.description, ...(skill.tags ?? [])].join(' '));
  const need = wanted.split('-');
  return need.length > 0 && need.every((w) => text.has(w)) ? 0.5 : 0;
}

/**
 * Scores an agent for a domain and capabilities, with the reasons. An agent
 * that does not serve the asked domain is no match; without a domain, one
 * that covers none of the capabilities is none either. Serving the domain
 * is half the score when capabilities are asked too; the other half is the
 * share of them covered (a named skill fully, one whose text holds all the
 * words half).
 */
export function scoreAgent(agent: AgentProfile, want: { domain?: string; capabilities?: string[] }): Match | null {
  const reasons: string[] = [];
  const missing: string[] = [];
  if (want.domain) {
    if (!agent.domains.includes(want.domain)) return null;
    reasons.push(`serves domain ${want.domain}`);
  }
  const wanted = [...new Set((want.capabilities ?? []).map(term).filter(Boolean))];
  let covered = 0;
  for (const c of wanted) {
    const feature = FEATURES.find((f) => term(f) === c);
    if (feature && agent.features[feature]) {
      covered += 1;
      reasons.push(`its card declares ${feature}`);
      continue;
    }
    const best = agent.skills.map((s) => ({ s, v: cover(s, c) })).sort((x, y) => y.v - x.v)[0];
    if (best && best.v > 0) {
      covered += best.v;
      reasons.push(best.v === 1 ? `skill ${best.s.id} is ${c}` : `skill ${best.s.id} mentions every word of ${c}`);
    } else {
      missing.push(c);
    }
  }
  if (wanted.length > 0) {
    if (!want.domain && covered === 0) return null;
    if (missing.length > 0) reasons.push(`no skill for ${missing.join(', ')}`);
  }
  const share = wanted.length > 0 ? covered / wanted.length : 1;
  const score = want.domain && wanted.length > 0 ? 0.5 + share / 2 : share;
  return { agentId: agent.agentId, score: Math.round(score * 1000) / 1000, reasons, missing };
}

/** Best first; equal scores by agent id, so the order is stable. */
export function rank(agents: AgentProfile[], want: { domain?: string; capabilities?: string[] }): Match[] {
  return agents
    .map((a) => scoreAgent(a, want))
    .filter((m): m is Match => m !== null)
    .sort((x, y) => y.score - x.score || x.agentId.localeCompare(y.agentId));
}
