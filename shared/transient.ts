/** Which dependency an outage is of, when an error says. */
export type Dependency = 'postgres' | 'redis';

/**
 * Thrown on the request path when a dependency already known to be down is
 * needed: the request fails at once (503) instead of waiting on a connection
 * that will not come. Transient by definition.
 */
export class DependencyUnavailable extends Error {
  constructor(readonly dependency: Dependency) {
    super(`${dependency === 'postgres' ? 'Postgres' : 'Redis'} is unavailable`);
    this.name = 'DependencyUnavailable';
  }
}

/**
 * Errors of the infrastructure rather than of the work: Postgres restarting
 * or refusing connections, a pool that cannot get one, Redis reconnecting.
 * Work that fails with one of these is retried with backoff (the outage
 * passes), never counted against the work's own error budget.
 */
const PG_TRANSIENT_CODES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);
const NODE_TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const MESSAGES = [
  /Connection terminated/i,
  /Timeout acquiring a connection/i,
  /Connection is closed/i,
  /Client has encountered a connection error/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /MaxRetriesPerRequestError|Reached the max retries per request limit/i,
  /Stream isn't writeable/i,
  /Command timed out/i,
];

export function isTransientInfraError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (err instanceof DependencyUnavailable) return true;
  const e = err as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (PG_TRANSIENT_CODES.has(code) || code.startsWith('08') || NODE_TRANSIENT_CODES.has(code)) return true;
  if (e.name === 'KnexTimeoutError' || e.name === 'MaxRetriesPerRequestError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (MESSAGES.some((re) => re.test(message))) return true;
  return e.cause !== undefined && e.cause !== err && isTransientInfraError(e.cause);
}

/** Postgres refusing, shutting down or starting up: the server itself is away (not a busy pool, not a deadlock). */
const PG_SERVER_AWAY = new Set(['57P01', '57P02', '57P03']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EAI_AGAIN']);
const SERVER_AWAY_MESSAGES = [/Connection terminated/i, /the database system is (starting up|shutting down)/i];

/**
 * A Postgres error that says the server went away or cannot be reached, as
 * opposed to one query's bad luck (a deadlock, a serialization failure, a
 * pool full under load). Narrower than `isTransientInfraError`: it flips the
 * health state to `down` at once (shared/health.ts), which a busy pool must not do.
 */
export function isServerAway(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (PG_SERVER_AWAY.has(code) || code.startsWith('08') || UNREACHABLE.has(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return SERVER_AWAY_MESSAGES.some((re) => re.test(message));
}
