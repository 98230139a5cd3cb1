/**
 * The one error type the service throws on purpose. The error middleware turns
 * it (and anything else) into the envelope `{ ok: false, error, message, details?, requestId }`.
 */
import type { ErrorCode } from './schemas/common.js';

export type { ErrorCode };

/** HTTP status for each error code; the spec's table plus the few the backbone adds. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalidPayload: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  methodNotAllowed: 405,
  conflict: 409,
  selfApproval: 409,
  requestTimeout: 408,
  payloadTooLarge: 413,
  unsupportedMediaType: 415,
  policyViolation: 422,
  rateLimitExceeded: 429,
  quotaExceeded: 429,
  internalError: 500,
  notImplemented: 501,
  unavailable: 503,
};

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const invalidPayload = (message: string, details?: unknown) => new AppError('invalidPayload', message, details);
export const notFound = (what: string) => new AppError('notFound', `${what} not found`);
export const conflict = (message: string, details?: unknown) => new AppError('conflict', message, details);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const unauthorized = (message = 'Missing, unknown or revoked bearer token') =>
  new AppError('unauthorized', message);
export const policyViolation = (message: string, details?: unknown) =>
  new AppError('policyViolation', message, details);
/**
 * 409: the member who submitted the run may not approve it (unless the account's approval policy allows that gate
 * kind).
 */
export const selfApproval = (message: string, details?: unknown) => new AppError('selfApproval', message, details);
export const notImplemented = (message: string) => new AppError('notImplemented', message);

/** True for errors a retry cannot fix (bad input, policy, missing records). */
export function isPermanent(err: unknown): boolean {
  return err instanceof AppError && err.status >= 400 && err.status < 500;
}

/**
 * A submission refused for load, before anything of it was written: `429` (the account holds as many runs as it may)
 * or `503` (a domain queue is past its depth: the service is saturated), always with `Retry-After`. Its own class so
 * what admitted the request (the workflow allowance and quota) is given back, and a schedule or signal records the
 * refusal as such rather than as a failure.
 */
export class Backpressure extends AppError {
  constructor(
    code: 'rateLimitExceeded' | 'unavailable',
    message: string,
    readonly retryAfterSeconds: number,
    details: Record<string, unknown>,
  ) {
    super(code, message, { ...details, retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
    this.name = 'Backpressure';
  }
}
