import type { Context, Next } from 'koa';
import { AppError, type ErrorCode } from '../../shared/errors.js';
import { redactSecrets, redactSecretsDeep } from '../../shared/secrets.js';
import { VaultError } from '../../shared/vault/envelope.js';
import { DependencyUnavailable, isTransientInfraError } from '../../shared/transient.js';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalidPayload',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'notFound',
  405: 'methodNotAllowed',
  408: 'requestTimeout',
  409: 'conflict',
  413: 'payloadTooLarge',
  415: 'unsupportedMediaType',
  422: 'policyViolation',
  429: 'rateLimitExceeded',
  501: 'notImplemented',
  503: 'unavailable',
};

/** The error envelope of a failure, as every transport answers it. */
export interface Envelope {
  status: number;
  headers: Record<string, string>;
  body: { ok: false; error: ErrorCode; message: string; details?: unknown; requestId: string };
}

/**
 * The vault failing to open a key (this process lacks the master key that wraps it, say after a rotation it was
 * not restarted for) is the server's configuration, not the client's input or a bug: 503 with a fixed message.
 * The VaultError's own words (key ids) go to the log line only.
 */
export const VAULT_UNAVAILABLE =
  'Stored secrets cannot be opened by this server right now (its master key does not ' +
  'open them; the operator must check AWP_MASTER_KEY); retry later';

/** Seconds a client is told to wait before retrying a request a dependency outage refused. */
export const UNAVAILABLE_RETRY_AFTER_SEC = 2;

/** 503 for a request refused by an outage (Postgres or Redis away): never a 500, always with Retry-After. */
export function dependencyUnavailable(what?: string): AppError {
  return new AppError(
    'unavailable',
    `${what ?? 'A service dependency (Postgres or Redis)'} is unavailable right now; ` +
      `retry in ${UNAVAILABLE_RETRY_AFTER_SEC} s`,
    undefined,
    { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SEC) },
  );
}

/**
 * Any thrown value as the envelope: client errors keep their message; an
 * outage of Postgres or Redis (`isTransientInfraError`) is a 503 with
 * Retry-After; anything unexpected becomes a 500 whose message hides
 * internals (the log line, keyed by request id, has the cause). MCP tool
 * results and A2A errors carry the same code and message as the HTTP answer would.
 */
export function toEnvelope(err: unknown, requestId: string): Envelope {
  let status = 500;
  let code: ErrorCode = 'internalError';
  let message = 'Unexpected error; retry with exponential backoff';
  let details: unknown;
  let headers: Record<string, string> = {};
  if (err instanceof AppError) {
    ({ status, code, message, details } = err);
    headers = err.headers ?? {};
  } else if (err instanceof VaultError) {
    [status, code, message] = [503, 'unavailable', VAULT_UNAVAILABLE];
  } else {
    const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string };
    const s = e.status ?? e.statusCode;
    if (s && s >= 400 && s < 500) {
      status = s;
      code = CODE_BY_STATUS[s] ?? 'invalidPayload';
      message = e.expose && e.message ? e.message : code;
    } else if (isTransientInfraError(err)) {
      const down = err instanceof DependencyUnavailable ? err.dependency : undefined;
      const refusal = dependencyUnavailable(down && (down === 'postgres' ? 'Postgres' : 'Redis'));
      ({ status, code, message } = refusal);
      headers = refusal.headers ?? {};
    }
  }
  // A client error's message may quote an upstream answer; a resolved secret value must not travel with it.
  const body = {
    ok: false as const,
    error: code,
    message: redactSecrets(message),
    ...(details !== undefined ? { details: redactSecretsDeep(details) } : {}),
    requestId,
  };
  return { status, headers, body };
}

/** First middleware: every failure leaves as the error envelope. */
export async function errorEnvelope(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const { status, headers, body } = toEnvelope(err, String(ctx.state.requestId ?? ''));
    if (status === 503 && isTransientInfraError(err))
      ctx.state.log?.warn({ err: (err as Error).message }, 'request refused: a dependency is unavailable');
    else if (status >= 500) ctx.state.log?.error({ err }, 'request failed');
    else ctx.state.log?.debug({ code: body.error, message: body.message }, 'request refused');
    ctx.status = status;
    ctx.set(headers);
    ctx.body = body;
  }
}
