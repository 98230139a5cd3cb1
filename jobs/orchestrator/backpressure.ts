import type { Config } from '../../shared/config.js';
import type { Deps } from '../../shared/deps.js';
import { Backpressure } from '../../shared/errors.js';
import { depthLimits } from '../../shared/queue-depth.js';

/*
 * The service's own bound on its backlog. Per-account admission (admission.ts) bounds what one account holds; this
 * bounds what every account together puts in a domain's queue. A new run whose route names a domain whose queue has
 * QUEUE_DEPTH_MAX jobs waiting (or its QUEUE_DEPTH_MAX_BY_DOMAIN exception) is refused 503 with Retry-After before
 * anything of it is written: the service is saturated, and a client told to come back later is better served than
 * one whose run waits behind an unbounded queue. Runs already accepted are never refused: an admission from the
 * hold, a resume, a step handed on (their number is bounded by the runs accepted).
 *
 * The cost on the submit path: a map read per domain of the route; the count behind it is refreshed from Redis at
 * most once per QUEUE_DEPTH_CHECK_MS per domain and process (shared/queue-depth.ts).
 */

const parsed = new WeakMap<object, Map<string, number>>();

/** The depth limit of domain `name`'s queue; 0 is none. */
export function depthLimit(config: Pick<Config, 'QUEUE_DEPTH_MAX' | 'QUEUE_DEPTH_MAX_BY_DOMAIN'>, name: string) {
  let limits = parsed.get(config);
  if (!limits) parsed.set(config, (limits = depthLimits(config.QUEUE_DEPTH_MAX_BY_DOMAIN)));
  return limits.get(name) ?? config.QUEUE_DEPTH_MAX;
}

/** Throws a 503 Backpressure when a queue of the route's domains is at its depth limit. */
export async function refuseWhenSaturated(deps: Pick<Deps, 'config' | 'queues'>, route: string[]): Promise<void> {
  for (const domain of new Set(route)) {
    const limit = depthLimit(deps.config, domain);
    if (limit === 0) continue;
    const depth = await deps.queues.depths.waiting(domain, deps.config.QUEUE_DEPTH_CHECK_MS);
    if (depth >= limit) throw saturated(deps.config, domain, depth, limit);
  }
}

function saturated(
  config: Pick<Config, 'QUEUE_DEPTH_RETRY_AFTER_SECONDS'>,
  domain: string,
  depth: number,
  max: number,
) {
  // Spread out: clients refused together should not all come back in the same second.
  const base = config.QUEUE_DEPTH_RETRY_AFTER_SECONDS;
  const retryAfter = base + Math.floor(Math.random() * (Math.floor(base / 2) + 1));
  return new Backpressure(
    'unavailable',
    `The ${domain} queue has ${depth} jobs waiting, at or past its limit of ${max}: the service is saturated and ` +
      `this run was not accepted (nothing was written); retry in ${retryAfter} s`,
    retryAfter,
    { reason: 'queueDepth', domain, queueDepth: depth, queueDepthLimit: max },
  );
}
