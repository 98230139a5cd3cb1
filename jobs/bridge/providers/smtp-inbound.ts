/**
 * Replies to email, as Mailgun's inbound routes deliver them (a route whose action is `forward("<callback URL>")`):
 * a form POST (`application/x-www-form-urlencoded`, or `multipart/form-data` when the mail has attachments, which
 * are skipped) with the parsed message (`sender`, `from`, `recipient`, `subject`, `body-plain`, `stripped-text`, the
 * MIME headers as fields such as `In-Reply-To` and `Message-Id`, and all of them in `message-headers`) and the
 * webhook signature: `timestamp`, `token`, `signature` = hex HMAC-SHA256 keyed with the domain's HTTP webhook
 * signing key over `timestamp` + `token` (https://documentation.mailgun.com/docs/mailgun/user-manual/
 * get-started/#securing-webhooks). The signing key is the connector's signing secret.
 *
 * Replays: a timestamp more than MAILGUN_REPLAY_WINDOW_S from the time it arrived (either way) is refused here; the
 * token is the callback's `externalId`, so the route, which records each externalId once per connector, refuses the
 * same token twice (Mailgun's advice: cache tokens, refuse one seen before).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import addressparser from 'nodemailer/lib/addressparser';
import type { CallbackVerdict, ProviderCallback, ProviderEvent } from './adapter.js';

/** How far a Mailgun timestamp may be from the time its callback arrived: 5 minutes, as Stripe's and Slack's. */
export const MAILGUN_REPLAY_WINDOW_S = 300;
/** Mailgun's tokens are 50 characters; anything much longer is not one. */
const MAX_TOKEN = 256;

/** A form body's text fields, urlencoded or multipart (file parts skipped); the first value of a repeated field. */
export function formFields(rawBody: string, contentType: string): Map<string, string> {
  const out = new Map<string, string>();
  const boundary = /^multipart\/form-data\b.*?;\s*boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) {
    for (const [k, v] of new URLSearchParams(rawBody)) if (!out.has(k)) out.set(k, v);
    return out;
  }
  for (const part of rawBody.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (!name || /\bfilename\*?=/i.test(disposition) || out.has(name)) continue;
    out.set(name, part.slice(split + 4).replace(/\r\n$/, ''));
  }
  return out;
}

/** Mailgun's signature: hex HMAC-SHA256 of timestamp + token with the signing key. */
export function mailgunSignature(signingKey: string, timestamp: string, token: string): string {
  return createHmac('sha256', signingKey)
    .update(timestamp + token, 'utf8')
    .digest('hex');
}

/** Checks a Mailgun callback's signature and age; `externalId` is its token (the route refuses one seen before). */
export function verifyMailgun(callback: ProviderCallback, signingKey: string): CallbackVerdict {
  const fields = formFields(callback.rawBody, callback.contentType);
  const timestamp = fields.get('timestamp') ?? '';
  const token = fields.get('token') ?? '';
  const signature = fields.get('signature') ?? '';
  if (!timestamp || !token || !signature) return { ok: false, reason: 'unsigned: timestamp, token and signature' };
  if (!/^\d{1,12}$/.test(timestamp) || token.length > MAX_TOKEN || !/^[0-9a-f]{64}$/i.test(signature))
    return { ok: false, reason: 'malformed signature fields' };
  const expected = Buffer.from(mailgunSignature(signingKey, timestamp, token), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return { ok: false, reason: 'signature mismatch' };
  const age = Math.abs(callback.receivedAt.getTime() / 1000 - Number(timestamp));
  if (age > MAILGUN_REPLAY_WINDOW_S)
    return { ok: false, reason: `timestamp outside the ${MAILGUN_REPLAY_WINDOW_S} s window (a replay?)` };
  return { ok: true, externalId: token };
}

/** The first `<id>` of a header such as In-Reply-To or References (all of them: the last for References). */
export function messageIds(value: string | undefined): string[] {
  return [...(value ?? '').matchAll(/<[^<>\s]+>/g)].map((m) => m[0]);
}

/** A header Mailgun gave as a field of its own, else from `message-headers` (a JSON list of [name, value]). */
function header(fields: Map<string, string>, name: string): string | undefined {
  for (const [k, v] of fields) if (k.toLowerCase() === name.toLowerCase()) return v;
  try {
    const list = JSON.parse(fields.get('message-headers') ?? '[]') as unknown;
    if (!Array.isArray(list)) return undefined;
    const hit = list.find((h) => Array.isArray(h) && String(h[0]).toLowerCase() === name.toLowerCase()) as
      [string, string] | undefined;
    return hit ? String(hit[1]) : undefined;
  } catch {
    return undefined;
  }
}

const addressOf = (value: string | undefined): string | null =>
  value ? (addressparser(value, { flatten: true })[0]?.address ?? null) : null;

/**
 * A verified Mailgun inbound POST as one `inbound` event: from the sender's address, to the recipient, the reply's
 * own text (`stripped-text`: without the quoted mail and signature, what a parser should read; `body-plain` when
 * Mailgun found nothing to strip), its Message-Id, and the message it answers (In-Reply-To, else the last of
 * References), which is the Message-ID the email adapter sent (`<actionId@domain>`).
 */
export function mailgunEvents(callback: ProviderCallback): ProviderEvent[] {
  const fields = formFields(callback.rawBody, callback.contentType);
  const from = addressOf(fields.get('from')) ?? addressOf(fields.get('sender'));
  if (!from) return [];
  const stripped = fields.get('stripped-text')?.trim();
  const inReplyTo = messageIds(header(fields, 'In-Reply-To'))[0] ?? messageIds(header(fields, 'References')).pop();
  return [
    {
      kind: 'inbound',
      from,
      to: addressOf(fields.get('recipient')),
      text: stripped || (fields.get('body-plain') ?? '').trim(),
      providerRef: messageIds(header(fields, 'Message-Id'))[0] ?? null,
      inReplyTo: inReplyTo ?? null,
    },
  ];
}
