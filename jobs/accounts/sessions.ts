import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { sha256, verifyPassword } from '../../shared/crypto.js';
import type { Deps } from '../../shared/deps.js';
import { AppError, conflict, notFound, unauthorized } from '../../shared/errors.js';
import { newId, randomSecret } from '../../shared/ids.js';
import { keyspace } from '../../shared/redis/cluster.js';
import {
  endSession,
  findLiveSession,
  getAccount,
  insertSession,
  monthlyUsage,
  replaceActivationHash,
} from './sessions-repository.js';
import { usagePeriod } from './workflow-allowance.js';
import { ROLE_SCOPES, type Principal } from '../../shared/schemas/auth.js';
import { activationMail } from './service.js';
import { getMember, signInCandidates } from './members-repository.js';

export const SESSION_COOKIE = 'awp_session';
const WINDOW_SECONDS = 15 * 60;
/** A fixed scrypt hash of a random password: an unknown email costs the same scrypt run as a wrong password. */
const DECOY_HASH = 'scrypt$16384$8$1$2oNoGTyzkCJhe5RmH3aJQA$YGPUouxl2ePh7CCwZQjMv64lsTDs0xyFt0uoFCb0Qrg';

export type SessionPrincipal = Principal & { csrfToken: string; expiresAt: Date };

const limiters = new WeakMap<object, RateLimiterRedis>();
function signInLimiter(deps: Pick<Deps, 'redis' | 'config'>): RateLimiterRedis {
  let limiter = limiters.get(deps.redis);
  if (!limiter) {
    limiter = new RateLimiterRedis({
      storeClient: deps.redis,
      points: deps.config.SIGN_IN_ATTEMPTS_PER_15_MIN,
      duration: WINDOW_SECONDS,
      keyPrefix: `${keyspace(deps.config.QUEUE_PREFIX)}:signin`, // no hash tag: spread over a cluster's masters
    });
    limiters.set(deps.redis, limiter);
  }
  return limiter;
}

/**
 * Counts one attempt per email and per client IP; 429 with Retry-After once either is used up. Failures and successes
 * both count.
 */
async function chargeAttempt(deps: Pick<Deps, 'redis' | 'config'>, email: string, ip: string): Promise<void> {
  const limiter = signInLimiter(deps);
  const outcomes = await Promise.allSettled([
    limiter.consume(`email:${sha256(email.trim().toLowerCase())}`),
    limiter.consume(`ip:${ip}`),
  ]);
  for (const o of outcomes) {
    if (o.status === 'fulfilled') continue;
    if (!(o.reason instanceof RateLimiterRes)) throw o.reason;
    const retryAfter = String(Math.max(1, Math.ceil(o.reason.msBeforeNext / 1000)));
    throw new AppError('rateLimitExceeded', `Too many sign-in attempts; retry in ${retryAfter} s`, undefined, {
      'Retry-After': retryAfter,
    });
  }
}

/**
 * A member's email and password → a new session of that member. The cookie
 * carries a 256-bit secret of which only the SHA-256 is stored; the CSRF
 * token is a second, independent secret the page sends back in `X-CSRF-Token`.
 * An email may belong to members of several accounts: `accountId` picks one;
 * without it the one membership whose password matches is taken, and when
 * several match the answer is 409 naming them (only after the password was
 * proven for each, so it reveals nothing to a guesser).
 */
export async function signIn(deps: Deps, input: { email: string; password: string; accountId?: string; ip: string }) {
  await chargeAttempt(deps, input.email, input.ip);
  const candidates = await signInCandidates(deps.db, input.email, input.accountId);
  const matched = [];
  // One after another: an email has a handful of memberships, and scrypt is the cost a guess must pay for each.
  for (const c of candidates) if (await verifyPassword(input.password, c.password_hash)) matched.push(c);
  // Sandbox accounts have no password ('!'), so verifyPassword is false for them.
  if (candidates.length === 0) await verifyPassword(input.password, DECOY_HASH);
  if (matched.length === 0) throw unauthorized('Email or password is wrong');
  if (matched.length > 1) {
    throw conflict('This email is a member of several accounts: send accountId to choose one', {
      accounts: matched.map((m) => ({ accountId: m.account_id, name: m.account_name })),
    });
  }
  const member = matched[0]!;
  const secret = `ses_${randomSecret(32)}`;
  const session = {
    id: newId('ses'),
    account_id: member.account_id,
    member_id: member.member_id,
    secret_hash: sha256(secret),
    csrf_token: randomSecret(32),
    expires_at: new Date(Date.now() + deps.config.SESSION_TTL_HOURS * 3_600_000),
  };
  await insertSession(deps.db, session);
  return { secret, sessionId: session.id, csrfToken: session.csrf_token, expiresAt: session.expires_at };
}

/**
 * The session's caller: its member's role's scopes (never `admin`), over HTTP only
 * (never MCP or A2A). `tokenId` is the session id, so actors read `token:ses_…`
 * and the rate limit counts the session like a token.
 */
export async function sessionPrincipal(deps: Pick<Deps, 'db'>, secret: string): Promise<SessionPrincipal | null> {
  const row = await findLiveSession(deps.db, sha256(secret));
  if (!row) return null;
  return {
    accountId: row.account_id,
    tokenId: row.id,
    memberId: row.member_id,
    role: row.role,
    scopes: [...ROLE_SCOPES[row.role]],
    plan: row.plan,
    activated: row.account_status === 'active',
    transports: ['http'],
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
  };
}

/** Signs the caller's dashboard session out; 404 for a bearer token, which has no session. */
export async function signOut(deps: Pick<Deps, 'db'>, principal: Principal): Promise<void> {
  if (!isSession(principal) || !(await endSession(deps.db, principal.accountId, principal.tokenId)))
    throw notFound('Dashboard session of this caller');
}

export function isSession(principal: Principal): principal is SessionPrincipal {
  return 'csrfToken' in principal;
}

/** What the dashboard header and usage page show about the caller's account. */
export async function accountOverview(deps: Deps, principal: Principal) {
  const account = await getAccount(deps.db, principal.accountId);
  if (!account) throw unauthorized();
  const period = usagePeriod();
  const used = await monthlyUsage(deps.db, account.id, period);
  const limit = account.plan === 'builder' ? deps.config.BUILDER_MONTHLY_RUNS : null;
  return {
    accountId: account.id,
    email: account.email,
    name: account.name,
    plan: account.plan,
    activated: account.status === 'active',
    usage: {
      period,
      workflowRequests: used,
      limit,
      unverifiedUsed: account.unverified_used,
      unverifiedLimit: deps.config.UNVERIFIED_REQUEST_LIMIT,
    },
  };
}

/** Who the caller is within its account (null for the service's own internal callers, which have no member). */
export async function callerMember(deps: Pick<Deps, 'db'>, principal: Principal) {
  const row = principal.memberId ? await getMember(deps.db, principal.accountId, principal.memberId) : null;
  return row ? { memberId: row.id, email: row.email, name: row.name, role: row.role } : null;
}

/** A new activation code (the old one stops working) mailed again; 409 when the account is already active. */
export async function resendActivation(deps: Deps, principal: Principal) {
  const account = await getAccount(deps.db, principal.accountId);
  if (!account) throw unauthorized();
  const activationToken = `act_${randomSecret(24)}`;
  if (!(await replaceActivationHash(deps.db, account.id, sha256(activationToken))))
    throw conflict('The account is already activated');
  const delivery = await activationMail(
    deps,
    { accountId: account.id, email: account.email, name: account.name },
    activationToken,
  );
  return { sentTo: account.email, delivery };
}
