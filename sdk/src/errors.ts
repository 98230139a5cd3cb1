import type { components } from './schema.js';

/** The stable codes of the service's error envelope (`{ ok: false, error, message, details?, requestId }`). */
export type AwpErrorCode = components['schemas']['ErrorEnvelope']['error'];

/**
 * A request the service refused or failed: its envelope, typed. `code` is the envelope's `error`, or
 * `unexpectedResponse` when something between the client and the service answered without one (a proxy's HTML page).
 */
export class AwpError extends Error {
  override readonly name = 'AwpError';
  constructor(
    readonly status: number,
    readonly code: AwpErrorCode | 'unexpectedResponse',
    message: string,
    readonly details: unknown,
    readonly requestId: string | undefined,
    /** From `Retry-After`, when the answer had one (429, 503). */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }

  /** Builds the error from a non-2xx answer whose body was already read (`body`: parsed JSON or the text). */
  static from(response: Response, body: unknown): AwpError {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    if (isEnvelope(body))
      return new AwpError(
        response.status,
        body.error,
        body.message,
        body.details,
        body.requestId ?? undefined,
        retryAfterMs,
      );
    const text = typeof body === 'string' ? body.slice(0, 200) : '';
    return new AwpError(
      response.status,
      'unexpectedResponse',
      `HTTP ${response.status} without an error envelope${text ? `: ${text}` : ''}`,
      undefined,
      response.headers.get('x-request-id') ?? undefined,
      retryAfterMs,
    );
  }
}

function isEnvelope(body: unknown): body is components['schemas']['ErrorEnvelope'] {
  const b = body as Record<string, unknown> | null;
  return Boolean(b && typeof b === 'object' && b.ok === false && typeof b.error === 'string');
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or bad. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
