import type { Deps } from '../../shared/deps.js';
import { getConversation } from '../../shared/db/conversations.js';
import { askLlmForJson, llmConfigured } from '../../shared/http/llm-json.js';
import { checkBeforePay } from './logic.js';
import { routableDomains, routeRequest, type RouteDecision, type RouteInput } from './route.js';

/**
 * Asks an OpenAI-compatible chat endpoint for the route. Any failure (network,
 * status, timeout, an answer that is not a list of known domains) returns
 * null so the caller falls back to the deterministic router.
 */
export async function llmRoute(config: Deps['config'], input: RouteInput): Promise<string[] | null> {
  if (!llmConfigured(config)) return null;
  try {
    const parsed = await askLlmForJson(
      config,
      `Route the user's request to an ordered list of domains from: ${routableDomains().join(', ')}. ` +
        `Answer with JSON only: {"route": ["domain", ...]}.`,
      input.request,
    );
    const route = Array.isArray(parsed?.route) ? (parsed.route as unknown[]) : null;
    return route &&
      route.length > 0 &&
      route.length <= 12 &&
      route.every((d) => typeof d === 'string' && routableDomains().includes(d))
      ? (route as string[])
      : null;
  } catch {
    return null;
  }
}

/**
 * The route of a request: forced, else the LLM when configured, else (and on any LLM failure) the deterministic router.
 * The LLM's route keeps the planner's order rule too: a check of the counterparty before any payment.
 */
export async function decideRoute(deps: Pick<Deps, 'config' | 'log'>, input: RouteInput): Promise<RouteDecision> {
  if (!deps.config.LLM_BASE_URL || input.domainRoute?.length) return routeRequest(input);
  let deterministic: RouteDecision | undefined;
  let refusal: unknown;
  try {
    deterministic = routeRequest(input);
    if (deterministic.followUp) return deterministic;
  } catch (err) {
    refusal = err; // the LLM may still route what the lexicon and classifier could not
  }
  const llm = await llmRoute(deps.config, input);
  if (!llm) {
    deps.log.warn('LLM router unavailable or gave an invalid answer; used the deterministic route');
    if (!deterministic) throw refusal;
    return { ...deterministic, reason: `${deterministic.reason} (LLM router fell back)` };
  }
  return {
    route: checkBeforePay(llm, (d) => d) as RouteDecision['route'],
    followUp: false,
    source: 'llm',
    reason: 'routed by the configured LLM',
    classification: deterministic?.classification ?? [],
  };
}

/** The conversation (when one is named and known) and what the router should know of its previous turn. */
export async function previousTurn(deps: Pick<Deps, 'db'>, accountId: string, conversationId: string | undefined) {
  const conversation = conversationId ? await getConversation(deps.db, accountId, conversationId) : null;
  const ctx = conversation?.context;
  const previous = ctx?.route
    ? { route: ctx.route, status: ctx.status ?? 'ready', waiting: ctx.waiting ?? null }
    : null;
  return { conversation, previous };
}
