import type { Deps } from '../../shared/deps.js';
import { candidateAgents, getAgent, insertAgent, listAgents, type AgentRow } from './repository.js';
import { assertBelongs, insertEnvelopes, newEnvelope, SERVICE_PARTY } from '../envelopes/index.js';
import { getRun } from '../../shared/db/runs.js';
import { conflict, invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { DOMAIN_NAMES } from '../../shared/domain-names.js';
import { decideRoute } from '../orchestrator/index.js';
import { normalizeCard } from './card.js';
import { capabilityTerms, rank, term, type Match } from './logic.js';
import { profileOf } from './view.js';

/** How many of an account's agents a match or a plan weighs (newest first). */
const CANDIDATES = 1000;

/**
 * Registers an agent card: the card is checked (the route's schema), read
 * as A2A 1.0 (0.3 cards translated), and stored with the domains it serves
 * and the capability terms it is matched on. The account's agent ids are
 * unique: a second card under one id is 409.
 */
export async function registerAgent(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  input: { agentId?: string; card: Record<string, unknown>; domains?: string[] },
): Promise<AgentRow> {
  const card = normalizeCard(input.card);
  const name = String(card.name ?? '');
  const agentId = input.agentId ?? term(name);
  if (!agentId || agentId === SERVICE_PARTY)
    throw invalidPayload(
      `agentId ${JSON.stringify(agentId)} is not available: it names this service or is empty; send an agentId`,
    );
  const profile = profileOf({ agent_id: agentId, domains: [], card });
  const named = new Set(profile.skills.flatMap((s) => [s.id, ...(s.tags ?? [])]));
  const domains = input.domains ?? DOMAIN_NAMES.filter((d) => named.has(d));
  if (domains.length === 0)
    throw invalidPayload(
      `Name the domains this agent serves (domains: ${DOMAIN_NAMES.join(', ')}), or tag one of its skills with one`,
      [{ path: '/domains', message: 'no domain given or found among the skills', keyword: 'required' }],
    );
  const row = await insertAgent(deps.db, {
    id: newId('agt'),
    account_id: principal.accountId,
    agent_id: agentId,
    name,
    card,
    domains,
    capabilities: capabilityTerms(profile),
  });
  if (!row) throw conflict(`Agent ${agentId} is already registered`, { agentId });
  return row;
}

export async function fetchAgent(deps: Pick<Deps, 'db'>, principal: Principal, agentId: string): Promise<AgentRow> {
  const row = await getAgent(deps.db, principal.accountId, agentId);
  if (!row) throw notFound(`Agent ${agentId}`);
  return row;
}

export function findAgents(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  query: { domain?: string; capability?: string; limit?: number; cursor?: string },
) {
  return listAgents(
    deps.db,
    principal.accountId,
    { domain: query.domain, capability: query.capability ? term(query.capability) : undefined },
    query.limit ?? 50,
    query.cursor,
  );
}

/** The account's agents ranked for a domain and capabilities, each with its score and the reasons for it. */
export async function matchAgents(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  want: { domain?: string; capabilities?: string[]; limit?: number },
) {
  if (!want.domain && !want.capabilities?.length)
    throw invalidPayload('Send a domain, capabilities or both', [
      { path: '/domain', message: 'domain or capabilities is required', keyword: 'required' },
    ]);
  const rows = await candidateAgents(deps.db, principal.accountId, want.domain, CANDIDATES);
  const byId = new Map(rows.map((r) => [r.agent_id, r]));
  const matches = rank(rows.map(profileOf), want).slice(0, want.limit ?? 10);
  return {
    considered: rows.length,
    matches: matches.map((m) => ({ ...m, name: byId.get(m.agentId)!.name, domains: byId.get(m.agentId)!.domains })),
  };
}

interface DelegateInput {
  request?: string;
  runId?: string;
  taskId?: string;
  domainRoute?: string[];
  capabilities?: string[];
  sender?: string;
  payload?: Record<string, unknown>;
}

/**
 * A delegation plan: the request split by the orchestrator's router (or the
 * run's route, or the given one) into domains, the best registered agent
 * for each, and one `delegation` envelope per hand-off, all written in one
 * statement. Domains no agent serves are listed as unassigned; a plan
 * nobody can take is 422.
 */
export async function delegate(deps: Pick<Deps, 'db' | 'config' | 'log'>, principal: Principal, input: DelegateInput) {
  if (!input.runId && !input.taskId)
    throw invalidPayload('A delegation belongs to a run or a task: send runId or taskId', [
      { path: '/runId', message: 'runId or taskId is required', keyword: 'required' },
    ]);
  const run = input.runId ? await getRun(deps.db, principal.accountId, input.runId) : null;
  if (input.runId && !run) throw notFound(`Run ${input.runId}`);
  const request = input.request ?? run?.request;
  if (!request)
    throw invalidPayload('request is required unless runId names the run whose request is delegated', [
      { path: '/request', message: 'required without runId', keyword: 'required' },
    ]);
  const sender = input.sender ?? SERVICE_PARTY;
  await assertBelongs(deps.db, principal.accountId, { parties: [sender], taskId: input.taskId });
  const route = [
    ...new Set(input.domainRoute ?? (input.request || !run ? (await decideRoute(deps, { request })).route : run.route)),
  ];

  const profiles = (await candidateAgents(deps.db, principal.accountId, undefined, CANDIDATES)).map(profileOf);
  const planId = newId('dlg');
  const steps = route.map((domain, i) => ({
    step: i + 1,
    domain,
    ranked: rank(profiles, { domain, capabilities: input.capabilities }),
  }));
  const assigned = steps.filter((s) => s.ranked.length > 0);
  if (assigned.length === 0) throw policyViolation(`No registered agent serves ${route.join(', ')}`, { route });
  const envelopes = await insertEnvelopes(
    deps.db,
    assigned.map((s) =>
      newEnvelope(principal, {
        kind: 'delegation',
        sender,
        recipient: s.ranked[0]!.agentId,
        runId: input.runId,
        taskId: input.taskId,
        planId,
        payload: {
          planId,
          request,
          domain: s.domain,
          step: s.step,
          of: route.length,
          ...(input.payload ? { input: input.payload } : {}),
        },
      }),
    ),
  );
  const msgIds = new Map(assigned.map((s, i) => [s.step, envelopes[i]!.id]));
  const pick = (m: Match) => ({ agentId: m.agentId, score: m.score, reasons: m.reasons });
  return {
    planId,
    request,
    route,
    runId: input.runId ?? null,
    taskId: input.taskId ?? null,
    handoffs: assigned.map((s) => ({
      step: s.step,
      domain: s.domain,
      ...pick(s.ranked[0]!),
      missing: s.ranked[0]!.missing,
      msgId: msgIds.get(s.step)!,
      alternatives: s.ranked.slice(1, 4).map(pick),
    })),
    unassigned: steps
      .filter((s) => s.ranked.length === 0)
      .map((s) => ({ step: s.step, domain: s.domain, reason: `no registered agent serves ${s.domain}` })),
    envelopes,
  };
}
