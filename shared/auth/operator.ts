import type { Principal } from '../schemas/auth.js';

/**
 * An operator token: it holds `admin`, which only `npm run token:admin` mints.
 * Operators generate load on purpose (benchmarks, soak tests), so the burst
 * rate limit and the workflow allowances, which protect the service from
 * customers' clients, do not apply to them: a limit would make the load dishonest.
 */
export function isOperator(principal: Principal | null | undefined): boolean {
  return Boolean(principal?.scopes.includes('admin'));
}
