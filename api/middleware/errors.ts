import type { Context, Next } from 'koa';
import { AppError, type ErrorCode } from '../../shared/errors.js';
import { redactSecrets, redactSecretsDeep } from '../../shared/secrets.js';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalidPayload', 401: 'unauthorized', 403: 'forbidden', 404: 'notFound', 405: 'methodNotAllowed', 408: 'requestTimeout',
  409: 'conflict', 413: 'payloadTooLarge', 415: 'unsupportedMediaType', 422: 'policyViolation', 429: 'rateLimitExceeded',
  501: 'notImplemented', 503: 'unavailable',
};

/**
 * First middleware: every failure leaves as the error envelope. Client errors
 * keep their message; anything unexpected becomes a 500 whose message hides
 * internals (the log line, keyed by request id, has the cause).
 */
export async function errorEnvelope(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const requestId = String(ctx.state.requestId ?? '');
    let status = 500;
    let code: ErrorCode = 'internalError';
    let message = 'Unexpected error; retry with exponential backoff';
    let details: unknown;
    let headers: Record<string, string> = {};
    if (err instanceof AppError) {
      ({ status, code, message, details } = err);
      headers = err.headers ?? {};
    } else {
      const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string };
      const s = e.status ?? e.statusCode;
      if (s && s >= 400 && s < 500) {
        status = s;
        code = CODE_BY_STATUS[s] ?? 'invalidPayload';
        message = e.expose && e.message ? e.message : code;
      }
    }
    if (status >= 500) ctx.state.log?.error({ err }, 'request failed');
    else ctx.state.log?.debug({ code, message }, 'request refused');
    ctx.status = status;
    ctx.set(headers);
    // A client error's message may quote an upstream answer; a resolved secret value must not travel with it.
    ctx.body = { ok: false, error: code, message: redactSecrets(message), ...(details !== undefined ? { details: redactSecretsDeep(details) } : {}), requestId };
  }
}
