import type { Context, Next } from 'koa';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { isOperator } from '../../shared/auth/operator.js';
import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';

// Probes: /healthz answers from memory; /readyz must answer while Redis (which counts the budget) is down,
// and concurrent calls share one in-flight check, so it costs no more than a counted request.
const EXEMPT = new Set(['/healthz', '/readyz']);

function setHeaders(ctx: Context, limit: number, res: RateLimiterRes) {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
  ctx.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)));
}

/**
 * Fixed one-minute window per token (per client IP for anonymous calls),
 * counted in Redis so every API instance shares the budget. Health probes
 * are exempt so a load balancer never starves a client, and operator tokens
 * so load they generate is measured, not throttled.
 */
export function rateLimit(deps: Deps) {
  const limit = deps.config.RATE_LIMIT_PER_MINUTE;
  const limiter = new RateLimiterRedis({
    storeClient: deps.redis,
    points: limit,
    duration: 60,
    keyPrefix: `${deps.config.QUEUE_PREFIX}:ratelimit`,
  });
  return async (ctx: Context, next: Next) => {
    if (EXEMPT.has(ctx.path) || isOperator(ctx.state.principal)) return next();
    const key = ctx.state.principal ? `tok:${ctx.state.principal.tokenId}` : `ip:${ctx.ip}`;
    try {
      setHeaders(ctx, limit, await limiter.consume(key));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      setHeaders(ctx, limit, rejection);
      const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      throw new AppError('rateLimitExceeded', `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s`, undefined, { 'Retry-After': retryAfter });
    }
    await next();
  };
}
