/**
 * What Slack sends back (https://api.slack.com/authentication/verifying-requests-from-slack): Events API deliveries
 * (JSON: the `url_verification` challenge, `event_callback` with a message event) and interactivity (a form with one
 * field, `payload=`, holding JSON: `block_actions` for a button click, legacy `interactive_message`). Each is signed
 * with the app's signing secret: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<raw
 * body>">`; a timestamp more than 5 minutes from the time it arrived is refused (Slack's rule against replays).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { CallbackVerdict, ProviderCallback, ProviderEvent } from './adapter.js';

/** Slack's replay window: requests whose timestamp is more than five minutes away are refused. */
export const SLACK_SIGNATURE_TOLERANCE_S = 300;

type Json = Record<string, any>;

const headerOf = (callback: ProviderCallback, name: string): string | undefined => {
  for (const [k, v] of Object.entries(callback.headers)) if (k.toLowerCase() === name) return v;
  return undefined;
};

/** `X-Slack-Signature` for a body sent at `timestamp` (unix seconds). */
export function slackSignature(signingSecret: string, timestamp: string | number, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`, 'utf8').digest('hex')}`;
}

/** What Slack sent, read: the JSON of an Events API delivery, or the `payload` JSON of an interaction. */
export function slackBody(callback: Pick<ProviderCallback, 'rawBody' | 'contentType'>): Json | null {
  try {
    if (/^application\/x-www-form-urlencoded\b/i.test(callback.contentType)) {
      const payload = new URLSearchParams(callback.rawBody).get('payload');
      return payload ? (JSON.parse(payload) as Json) : null;
    }
    const body = JSON.parse(callback.rawBody) as unknown;
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : null;
  } catch {
    return null;
  }
}

/** The name of one delivery, the same on Slack's retries: an event's `event_id`, an interaction's `trigger_id`. */
function externalIdOf(body: Json | null, rawBody: string): string {
  if (body?.type === 'url_verification') return `url_verification:${String(body.challenge ?? '')}`;
  if (typeof body?.event_id === 'string') return body.event_id;
  if (typeof body?.trigger_id === 'string') return body.trigger_id;
  return `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
}

/** Checks Slack's signature and timestamp; `externalId` names the delivery once (Slack's retries have the same). */
export function verifySlack(callback: ProviderCallback, signingSecret: string): CallbackVerdict {
  const timestamp = headerOf(callback, 'x-slack-request-timestamp') ?? '';
  const signature = headerOf(callback, 'x-slack-signature') ?? '';
  if (!timestamp || !signature) return { ok: false, reason: 'unsigned: X-Slack-Signature and its timestamp' };
  if (!/^\d{1,12}$/.test(timestamp) || !/^v0=[0-9a-f]{64}$/i.test(signature))
    return { ok: false, reason: 'malformed X-Slack-Signature or X-Slack-Request-Timestamp' };
  const expected = Buffer.from(slackSignature(signingSecret, timestamp, callback.rawBody));
  if (!timingSafeEqual(expected, Buffer.from(signature.toLowerCase())))
    return { ok: false, reason: 'signature mismatch' };
  if (Math.abs(callback.receivedAt.getTime() / 1000 - Number(timestamp)) > SLACK_SIGNATURE_TOLERANCE_S)
    return { ok: false, reason: `timestamp more than ${SLACK_SIGNATURE_TOLERANCE_S} s away (a replay?)` };
  return { ok: true, externalId: externalIdOf(slackBody(callback), callback.rawBody) };
}

/** Message events a person wrote: not our own bot's posts echoed back, not edits, joins or deletions. */
const PERSON_SUBTYPES = new Set([undefined, 'thread_broadcast', 'file_share']);

function messageEvent(event: Json): ProviderEvent[] {
  if (event.type !== 'message' && event.type !== 'app_mention') return [];
  if (event.bot_id || !PERSON_SUBTYPES.has(event.subtype) || typeof event.user !== 'string') return [];
  const channel = String(event.channel ?? '');
  const ts = String(event.ts ?? '');
  const thread = typeof event.thread_ts === 'string' && event.thread_ts !== ts ? event.thread_ts : null;
  return [
    {
      kind: 'inbound',
      from: event.user,
      to: channel || null,
      text: typeof event.text === 'string' ? event.text : '',
      providerRef: channel && ts ? `${channel}:${ts}` : null,
      inReplyTo: thread && channel ? `${channel}:${thread}` : null,
    },
  ];
}

/** A button click (or a menu choice) as the reply it stands for, answering the message its buttons were on. */
function interaction(body: Json): ProviderEvent[] {
  if (body.type !== 'block_actions' && body.type !== 'interactive_message') return [];
  const channel = String(body.channel?.id ?? body.container?.channel_id ?? '');
  const messageTs = body.container?.message_ts ?? body.message?.ts ?? body.original_message?.ts ?? body.message_ts;
  const from = String(body.user?.id ?? '');
  if (!from || !Array.isArray(body.actions)) return [];
  return (body.actions as Json[]).flatMap((action) => {
    const value = action.value ?? action.selected_option?.value ?? action.selected_options?.[0]?.value;
    if (typeof value !== 'string') return [];
    return [
      {
        kind: 'inbound' as const,
        from,
        to: channel || null,
        text: value,
        providerRef: null,
        inReplyTo: channel && typeof messageTs === 'string' ? `${channel}:${messageTs}` : null,
      },
    ];
  });
}

/**
 * A verified Slack callback as events: a message a person wrote (in a thread: `inReplyTo` is `channel:thread_ts`,
 * the provider reference of the message the adapter posted), a button click (its `value`, e.g. "yes", answering
 * `channel:message_ts`). The `url_verification` challenge and everything else: no event.
 */
export function slackEvents(callback: ProviderCallback): ProviderEvent[] {
  const body = slackBody(callback);
  if (!body) return [];
  if (body.type === 'event_callback' && body.event && typeof body.event === 'object') return messageEvent(body.event);
  return interaction(body);
}

/** What the callback route answers Slack, instead of its own JSON. */
export interface SlackCallbackAnswer {
  status: 200;
  contentType: 'text/plain';
  body: string;
}

/**
 * The answer Slack expects to a verified callback: the `challenge` itself to the Events API's `url_verification`
 * (how Slack checks a Request URL before it sends events there), and an empty 200 to everything else, within 3 s
 * (a body would be read as a replacement for the message of a legacy interaction).
 */
export function slackCallbackAnswer(callback: ProviderCallback): SlackCallbackAnswer {
  const body = slackBody(callback);
  const challenge = body?.type === 'url_verification' && typeof body.challenge === 'string' ? body.challenge : '';
  return { status: 200, contentType: 'text/plain', body: challenge };
}
