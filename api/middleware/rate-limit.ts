import type { Context, Next } from 'koa';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { isOperator } from '../../shared/auth/operator.js';
import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { keyspace } from '../../shared/redis/cluster.js';

// Probes: /healthz answers from memory; /readyz must answer while Redis (which counts the budget) is down,
// and concurrent calls share one in-flight check, so it costs no more than a counted request.
const EXEMPT = new Set(['/healthz', '/readyz', '/livez']);

function setHeaders(ctx: Context, limit: number, res: RateLimiterRes) {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
  ctx.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)));
}

const rejected = (limit: number, res: RateLimiterRes, what: string) => {
  const retryAfter = String(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
  return new AppError(
    'rateLimitExceeded',
    `Rate limit of ${limit} requests per minute ${what} exceeded; retry in ${retryAfter} s`,
    undefined,
    { 'Retry-After': retryAfter },
  );
};

/**
 * Fixed one-minute windows counted in Redis, so every API instance shares
 * the budgets: one per token (per client IP for anonymous calls) and one per
 * account across all its tokens, so minting tokens does not buy requests.
 * The headers show the tighter of the two. Health probes are exempt so a load
 * balancer never starves a client, and operator tokens so load they generate
 * is measured, not throttled.
 */
export function rateLimit(deps: Deps) {
  const perToken = { limit: deps.config.RATE_LIMIT_PER_MINUTE, what: 'for this token' };
  const perAccount = { limit: deps.config.ACCOUNT_RATE_LIMIT_PER_MINUTE, what: 'for this account' };
  const limiter = (points: number, name: string) =>
    new RateLimiterRedis({
      storeClient: deps.redis,
      points,
      duration: 60,
      // No hash tag: on a Redis Cluster these per-request keys spread over every master.
      keyPrefix: `${keyspace(deps.config.QUEUE_PREFIX)}:${name}`,
    });
  const tokens = limiter(perToken.limit, 'ratelimit');
  const accounts = limiter(perAccount.limit, 'ratelimit-account');
  return async (ctx: Context, next: Next) => {
    if (EXEMPT.has(ctx.path) || isOperator(ctx.state.principal)) return next();
    const principal = ctx.state.principal as { tokenId: string; accountId: string } | undefined;
    const checks = [{ ...perToken, take: tokens.consume(principal ? `tok:${principal.tokenId}` : `ip:${ctx.ip}`) }];
    if (principal) checks.push({ ...perAccount, take: accounts.consume(`acct:${principal.accountId}`) });
    const outcomes = await Promise.allSettled(checks.map((c) => c.take));
    for (const o of outcomes) if (o.status === 'rejected' && !(o.reason instanceof RateLimiterRes)) throw o.reason;
    const results = outcomes.map((o, i) => ({
      ...checks[i]!,
      res: (o.status === 'fulfilled' ? o.value : o.reason) as RateLimiterRes,
      ok: o.status === 'fulfilled',
    }));
    const tightest = results.reduce((a, b) => (b.res.remainingPoints < a.res.remainingPoints ? b : a));
    const over = results.find((r) => !r.ok);
    setHeaders(ctx, (over ?? tightest).limit, (over ?? tightest).res);
    if (over) throw rejected(over.limit, over.res, over.what);
    await next();
  };
}
