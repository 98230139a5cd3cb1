import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './schema.js';

/** The body the service delivers for event type `T` (OpenAPI `webhooks`). */
export type WebhookBody<T extends keyof webhooks> = webhooks[T]['post'] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** Any delivery of a registered event type, discriminated by `type`. */
export type WebhookEvent = { [K in keyof webhooks]: WebhookBody<K> }[keyof webhooks];

/** A delivery whose signature, timestamp or body did not check out: refuse it (answer 4xx, do nothing). */
export class AwpWebhookError extends Error {
  override readonly name = 'AwpWebhookError';
}

/**
 * Verifies a delivery the way Standard Webhooks says (HMAC-SHA256 over `webhook-id.webhook-timestamp.body`, with the
 * subscription's `whsec_` secret, a timestamp within 5 minutes) and returns its parsed body. `payload` must be the raw
 * body as received: parsing and serialising it again changes the bytes the signature covers. During a secret rotation
 * the service signs with both secrets; either verifies.
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
  secret: string,
): WebhookEvent {
  const flat: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [k, v] of entries) if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  try {
    return new Webhook(secret).verify(text, flat) as WebhookEvent;
  } catch (error) {
    const reason = error instanceof WebhookVerificationError || error instanceof Error ? error.message : String(error);
    throw new AwpWebhookError(`webhook refused: ${reason}`);
  }
}
