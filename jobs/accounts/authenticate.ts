import { findActiveToken, touchToken } from './repository.js';
import { hashToken } from './issue-token.js';
import type { Deps } from '../../shared/deps.js';
import { effectiveScopes, type Principal } from '../../shared/schemas/auth.js';

const TOUCH_EVERY_MS = 60_000;
const TOUCH_MAX_TOKENS = 10_000;

/**
 * Remembers when each token's `last_used_at` was last written, so it is
 * written at most once per `everyMs`. Bounded: entries older than `everyMs`
 * are worth nothing and are dropped as new ones come in (a Map iterates in
 * insertion order, and an entry is re-inserted when it is renewed, so the
 * oldest are first), and past `max` tokens the oldest go even if fresh (that
 * token's next use writes once more, which is harmless).
 */
export class TouchDebounce {
  private readonly at = new Map<string, number>();

  constructor(
    private readonly everyMs = TOUCH_EVERY_MS,
    private readonly max = TOUCH_MAX_TOKENS,
  ) {}

  /** True when `id` is due a write now (and records that it gets one). */
  due(id: string, now = Date.now()): boolean {
    const last = this.at.get(id);
    if (last !== undefined && last > now - this.everyMs) return false;
    this.at.delete(id);
    this.at.set(id, now);
    for (const [oldest, t] of this.at) {
      if (this.at.size <= this.max && t > now - this.everyMs) break;
      this.at.delete(oldest);
    }
    return true;
  }

  get size(): number {
    return this.at.size;
  }
}

/**
 * How long a resolved token is trusted without asking Postgres; a revoke, rotation or activation clears it at once (all
 * processes, over the bus).
 */
export const PRINCIPAL_TTL_MS = 5_000;
const PRINCIPAL_MAX = 10_000;
const CHANNEL = 'auth-changes';

/**
 * Resolved principals by token hash, for PRINCIPAL_TTL_MS. One per process
 * (per Deps), so the service that revokes a token clears it here before it
 * answers, and every other process when the bus message arrives; were that
 * message lost (Redis away), the entry still expires within the TTL.
 */
class PrincipalCache {
  private readonly byHash = new Map<string, { principal: Principal; until: number }>();

  get(hash: string, now = Date.now()): Principal | null {
    const hit = this.byHash.get(hash);
    if (!hit) return null;
    if (hit.until > now) return hit.principal;
    this.byHash.delete(hash);
    return null;
  }

  set(hash: string, principal: Principal, now = Date.now()): void {
    if (this.byHash.size >= PRINCIPAL_MAX) this.byHash.delete(this.byHash.keys().next().value!);
    this.byHash.set(hash, { principal, until: now + PRINCIPAL_TTL_MS });
  }

  forget(change: AuthChange): void {
    for (const [hash, { principal }] of this.byHash) {
      if (principal.tokenId === change.tokenId || principal.accountId === change.accountId) this.byHash.delete(hash);
    }
  }
}

export type AuthChange = { tokenId?: string; accountId?: string };

const caches = new WeakMap<object, PrincipalCache>();
function cacheOf(deps: Pick<Deps, 'bus'>): PrincipalCache {
  // Keyed by the process's bus, so a copy of deps (a request's, with its own logger) shares the cache.
  let cache = caches.get(deps.bus);
  if (!cache) {
    const created = new PrincipalCache();
    caches.set(deps.bus, created);
    void deps.bus.subscribe(CHANNEL, (msg) => created.forget(JSON.parse(msg) as AuthChange)).catch(() => undefined);
    cache = created;
  }
  return cache;
}

/** A token was revoked or rotated, or an account changed: no process may keep trusting what it resolved before. */
export async function forgetPrincipals(deps: Pick<Deps, 'bus'>, change: AuthChange): Promise<void> {
  cacheOf(deps).forget(change);
  await deps.bus.publish(CHANNEL, change).catch(() => undefined);
}

/**
 * Resolves bearer secrets into principals: from the cache when it is fresh,
 * else from Postgres. `last_used_at` is informational; writing it at most
 * once a minute per token keeps authentication read-only on the hot path.
 */
export function tokenAuthenticator(
  deps: Pick<Deps, 'db' | 'log' | 'bus'>,
): (secret: string) => Promise<Principal | null> {
  const touched = new TouchDebounce();
  const cache = cacheOf(deps);
  return async (secret) => {
    const hash = hashToken(secret);
    const cached = cache.get(hash);
    if (cached) return cached;
    const row = await findActiveToken(deps.db, hash);
    if (!row) return null;
    if (touched.due(row.token_id)) {
      touchToken(deps.db, row.token_id).catch((err: Error) =>
        deps.log.warn({ err: err.message }, 'token touch failed'),
      );
    }
    const principal: Principal = {
      accountId: row.account_id,
      tokenId: row.token_id,
      memberId: row.member_id,
      role: row.role,
      scopes: effectiveScopes(row.scopes, row.role),
      plan: row.plan,
      activated: row.account_status === 'active',
      transports: row.transports,
    };
    cache.set(hash, principal);
    return principal;
  };
}
