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
];

export function isTransientInfraError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (PG_TRANSIENT_CODES.has(code) || code.startsWith('08') || NODE_TRANSIENT_CODES.has(code)) return true;
  if (e.name === 'KnexTimeoutError' || e.name === 'MaxRetriesPerRequestError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (MESSAGES.some((re) => re.test(message))) return true;
  return e.cause !== undefined && e.cause !== err && isTransientInfraError(e.cause);
}
