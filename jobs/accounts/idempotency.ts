import type { Deps } from '../../shared/deps.js';
import { abandonIdempotent, finishIdempotent, startIdempotent } from '../../shared/db/idempotency.js';

/**
 * Idempotency-Key replay, per account: the first request with a key claims
 * it, its response is stored for IDEMPOTENCY_TTL_HOURS, and a failure frees it.
 */
export function claimIdempotencyKey(deps: Pick<Deps, 'db' | 'config'>, accountId: string, key: string, fingerprint: string) {
  return startIdempotent(deps.db, accountId, key, fingerprint, deps.config.IDEMPOTENCY_TTL_HOURS);
}

export function storeIdempotentResponse(deps: Pick<Deps, 'db'>, accountId: string, key: string, status: number, body: unknown, headers: Record<string, string>) {
  return finishIdempotent(deps.db, accountId, key, status, body, headers);
}

export function releaseIdempotencyKey(deps: Pick<Deps, 'db'>, accountId: string, key: string) {
  return abandonIdempotent(deps.db, accountId, key);
}
