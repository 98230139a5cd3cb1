import { createHash, createHmac } from 'node:crypto';
import { sign } from '../events/index.js';

/**
 * Pure rules of a bridge action's call: how a credential is presented, what
 * is signed, which answers are worth another attempt and when, and what of
 * the answer is kept as the provider's reference.
 */

export const sha256Hex = (v: string | Buffer) => createHash('sha256').update(v).digest('hex');

/**
 * What is kept of a call before it is made, never the credential itself: where it goes, the body's hash and size,
 * the idempotency key, the credential's reference.
 */
export function callSummary(
  connector: { endpoint: string; credential: { type: string; tokenRef: string } | null },
  idempotencyKey: string,
  body: string,
) {
  const url = new URL(connector.endpoint);
  return {
    endpoint: `${url.origin}${url.pathname}`,
    bodySha256: sha256Hex(body),
    bodyBytes: Buffer.byteLength(body),
    idempotencyKey,
    credential: connector.credential
      ? { type: connector.credential.type, tokenRef: connector.credential.tokenRef }
      : null,
  };
}

/**
 * The header a credential travels in, by its type: bearer and oauth2 as
 * `Authorization: Bearer`, basic as `Authorization: Basic` over the value
 * (`user:password`, or the value as the user with an empty password),
 * apiKey as `X-Api-Key`, hmac as `X-Signature-256: sha256=<hex>` over the
 * body (the value is the key; it never travels).
 */
export function credentialHeaders(type: string, value: string, body: string): Record<string, string> {
  switch (type) {
    case 'basic':
      return { authorization: `Basic ${Buffer.from(value.includes(':') ? value : `${value}:`).toString('base64')}` };
    case 'apiKey':
      return { 'x-api-key': value };
    case 'hmac':
      return { 'x-signature-256': `sha256=${createHmac('sha256', value).update(body).digest('hex')}` };
    default:
      return { authorization: `Bearer ${value}` };
  }
}

/** Standard Webhooks headers (id, timestamp, signature) over the body, with the connector's signing secret. */
export function signatureHeaders(
  secret: string,
  msgId: string,
  timestampSec: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': sign(secret, msgId, timestampSec, body),
  };
}

/** The body a hosted adapter receives: Standard Webhooks' `type`, `timestamp` and `data`. */
export function actionBody(
  a: {
    id: string;
    capability: string;
    resource: string | null;
    input: Record<string, unknown>;
    refs: Record<string, string | null>;
  },
  at: Date,
): string {
  return JSON.stringify({
    type: 'bridge.action',
    timestamp: at.toISOString(),
    data: { actionId: a.id, capability: a.capability, resource: a.resource, input: a.input, refs: a.refs },
  });
}

export type AnswerVerdict = 'succeeded' | 'retry' | 'failed';

/** 2xx succeeded; no answer (network, timeout), 408, 429 and 5xx are transient; any other 3xx or 4xx fails at once. */
export function verdictOf(status: number | null): AnswerVerdict {
  if (status === null || status === 408 || status === 429 || status >= 500) return 'retry';
  return status >= 200 && status < 300 ? 'succeeded' : 'failed';
}

/**
 * Delay before attempt `attempt + 1`: the base doubling per attempt, never
 * shorter than a Retry-After the provider asked for, at most `maxMs`.
 */
export function retryDelay(attempt: number, baseMs: number, retryAfterMs: number | null, maxMs = 3_600_000): number {
  const backoff = baseMs * 2 ** Math.max(0, attempt - 1);
  return Math.min(maxMs, Math.max(backoff, retryAfterMs ?? 0));
}

/**
 * The provider's own id for what it did (`id`, `sid`, `messageId`, `reference`), kept so its callbacks find the action.
 */
export function providerRefOf(answer: unknown): string | null {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return null;
  const a = answer as Record<string, unknown>;
  for (const key of ['providerRef', 'id', 'sid', 'messageId', 'reference']) {
    const v = a[key];
    if ((typeof v === 'string' && v.length > 0 && v.length <= 300) || typeof v === 'number') return String(v);
  }
  return null;
}

/** A response body as kept: JSON when it parses, else the text. */
export function parsedAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
