import { forbidden } from '../errors.js';
import type { Principal, Transport } from '../schemas/auth.js';

/** The scopes of `scopes` the principal lacks (admin holds them all). */
export function missingScopes(principal: Principal, scopes: readonly string[] = []): string[] {
  return scopes.filter((s) => !principal.scopes.includes(s) && !principal.scopes.includes('admin'));
}

/** 403 unless the principal holds every scope. */
export function assertScopes(principal: Principal, scopes: readonly string[] = []): void {
  const missing = missingScopes(principal, scopes);
  if (missing.length > 0) throw forbidden(`Token lacks scope ${missing.join(', ')}`);
}

/**
 * 403 unless the token may be used over this transport. A token names the
 * transports it serves (all three unless narrowed at creation), so an
 * account can give an MCP host or an A2A peer a token that works there and
 * nowhere else; the transport is that of the endpoint the request reached.
 */
export function assertTransport(principal: Principal, transport: Transport): void {
  if (principal.transports && !principal.transports.includes(transport)) {
    throw forbidden(
      `This token is limited to the ${principal.transports.join(', ')} ` +
        `transport${principal.transports.length > 1 ? 's' : ''}; it cannot be used over ${transport}`,
    );
  }
}
