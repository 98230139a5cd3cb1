import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Pure rules of channels: verifying a provider callback's signature over
 * its raw body, and normalising what providers send into one shape (kind,
 * status, refs).
 */

export const CHANNELS = ['sms', 'voice', 'email', 'chat', 'web', 'api'] as const;
export const DIRECTIONS = ['inbound', 'outbound', 'internal'] as const;
export const CALLBACK_KINDS = ['deliveryStatus', 'proxyOutcome', 'inboundMessage', 'other'] as const;
export const CALLBACK_STATUSES = ['sent', 'delivered', 'failed', 'received', 'reported', 'unknown'] as const;
/** `provider`: the connector kind's own scheme, checked by its adapter (X-Twilio-Signature, Slack's, …). */
export const SIGNATURE_SCHEMES = ['standardWebhooks', 'hubSignature256', 'provider', 'unsigned'] as const;

export type CallbackKind = (typeof CALLBACK_KINDS)[number];
export type CallbackStatus = (typeof CALLBACK_STATUSES)[number];
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export type Verdict = { ok: true; scheme: SignatureScheme } | { ok: false; reason: string };

/**
 * Checks a callback against the connector's signing secret: Standard
 * Webhooks headers (verified by the standardwebhooks package, which also
 * refuses a timestamp more than five minutes off), else
 * `X-Hub-Signature-256: sha256=<hex>` (HMAC-SHA256 of the raw body keyed
 * with the secret as written). Without a secret nothing can be checked: the callback is refused unless `unsigned`
 * says the connector was registered with the development setting that accepts them (`callbackSigning: unsigned`,
 * never in production).
 */
export function verifyCallback(
  secret: string | null,
  raw: string,
  headers: Readonly<Record<string, string | undefined>>,
  unsigned: { connectorId: string; accepted: boolean; production: boolean },
): Verdict {
  if (!secret) {
    if (unsigned.accepted && !unsigned.production) return { ok: true, scheme: 'unsigned' };
    return {
      ok: false,
      reason: unsigned.accepted
        ? 'unsigned callbacks (callbackSigning: unsigned) are a development setting and are refused in production: ' +
          'give the connector a signingSecret (whsec_…) and have the provider sign its callbacks'
        : `connector ${unsigned.connectorId} has no signingSecret, so its callbacks cannot be verified: give it ` +
          `one (whsec_…, POST /v1/bridge/connectors/${unsigned.connectorId}/update) and have the provider sign ` +
          'with it (Standard Webhooks or X-Hub-Signature-256); for local development only, the connector setting ' +
          'callbackSigning: unsigned accepts unsigned callbacks',
    };
  }
  if (headers['webhook-signature']) {
    try {
      new Webhook(secret).verify(raw, {
        'webhook-id': headers['webhook-id'] ?? '',
        'webhook-timestamp': headers['webhook-timestamp'] ?? '',
        'webhook-signature': headers['webhook-signature'],
      });
      return { ok: true, scheme: 'standardWebhooks' };
    } catch (err) {
      return { ok: false, reason: `Standard Webhooks signature refused: ${(err as Error).message}` };
    }
  }
  const hub = headers['x-hub-signature-256'];
  if (hub) {
    const given = Buffer.from(hub.replace(/^sha256=/, ''), 'hex');
    const wanted = createHmac('sha256', secret).update(raw).digest();
    return given.length === wanted.length && timingSafeEqual(given, wanted)
      ? { ok: true, scheme: 'hubSignature256' }
      : { ok: false, reason: 'X-Hub-Signature-256 does not match the body' };
  }
  return {
    ok: false,
    reason:
      'the connector has a signing secret: send webhook-id, webhook-timestamp and webhook-signature, or ' +
      'X-Hub-Signature-256',
  };
}

/**
 * The callback's own id: `webhook-id`, else the body's id, else the hash of the raw body (so a resend is the same
 * callback).
 */
export function externalIdOf(
  headers: Readonly<Record<string, string | undefined>>,
  payload: Record<string, unknown>,
  raw: string,
): string {
  const fromBody = [payload.callbackId, payload.eventId, payload.id].find(
    (v) => typeof v === 'string' && v.length > 0 && v.length <= 200,
  ) as string | undefined;
  return headers['webhook-id']?.slice(0, 200) || fromBody || `sha256:${createHash('sha256').update(raw).digest('hex')}`;
}

const DELIVERY: Record<string, CallbackStatus> = {
  delivered: 'delivered',
  read: 'delivered',
  completed: 'delivered',
  answered: 'delivered',
  sent: 'sent',
  queued: 'sent',
  accepted: 'sent',
  sending: 'sent',
  ringing: 'sent',
  'in-progress': 'sent',
  initiated: 'sent',
  failed: 'failed',
  undelivered: 'failed',
  bounced: 'failed',
  busy: 'failed',
  'no-answer': 'failed',
  canceled: 'failed',
  rejected: 'failed',
};

export interface CallbackRefs {
  actionId?: string;
  providerRef?: string;
  proxyId?: string;
  callbackRef?: string;
  threadId?: string;
}

export interface Normalized {
  kind: CallbackKind;
  status: CallbackStatus;
  refs: CallbackRefs;
  /** A proxy outcome as POST /v1/proxy/outcomes takes it (status, note, availability, proof). */
  outcome?: Record<string, unknown>;
  /** An inbound message's text and sender. */
  message?: { from: string | null; text: string };
}

const str = (v: unknown) =>
  typeof v === 'string' && v.length > 0 && v.length <= 300 ? v : typeof v === 'number' ? String(v) : undefined;

/**
 * One shape for what providers send: the payload itself or its `data` (a
 * Standard Webhooks envelope). A proxy outcome (`outcome.status`), a
 * delivery status (a `status` / `MessageStatus` naming an action or the
 * provider's id for it), an inbound message (`text` or `body`), or other.
 */
export function normalizeCallback(payload: Record<string, unknown>): Normalized {
  const data =
    payload.data && typeof payload.data === 'object' && !Array.isArray(payload.data)
      ? { ...payload, ...(payload.data as Record<string, unknown>) }
      : payload;
  const input = (data.input && typeof data.input === 'object' ? data.input : {}) as Record<string, unknown>;
  const refs: CallbackRefs = Object.fromEntries(
    Object.entries({
      actionId: str(data.actionId),
      providerRef:
        str(data.providerRef) ?? str(data.sid) ?? str(data.MessageSid) ?? str(data.CallSid) ?? str(data.messageId),
      proxyId: str(data.proxyId) ?? str(input.proxyId),
      callbackRef: str(data.callbackRef) ?? str(input.callbackRef),
      threadId: str(data.threadId),
    }).filter(([, v]) => v !== undefined),
  );
  const outcome =
    data.outcome && typeof data.outcome === 'object' && !Array.isArray(data.outcome)
      ? (data.outcome as Record<string, unknown>)
      : null;
  if (outcome && typeof outcome.status === 'string') return { kind: 'proxyOutcome', status: 'reported', refs, outcome };
  const raw = str(data.status) ?? str(data.MessageStatus) ?? str(data.CallStatus) ?? str(data.deliveryStatus);
  if (raw && (refs.actionId || refs.providerRef))
    return { kind: 'deliveryStatus', status: DELIVERY[raw.toLowerCase()] ?? 'unknown', refs };
  const text =
    typeof data.text === 'string'
      ? data.text
      : typeof data.body === 'string'
        ? data.body
        : typeof data.Body === 'string'
          ? data.Body
          : null;
  if (text !== null)
    return {
      kind: 'inboundMessage',
      status: 'received',
      refs,
      message: { from: str(data.from) ?? str(data.From) ?? null, text: text.slice(0, 10_000) },
    };
  return { kind: 'other', status: 'unknown', refs };
}
