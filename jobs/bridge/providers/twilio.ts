/**
 * Twilio (issue 31), through the official `twilio` SDK: `msg.sms` is a Message, `msg.voice` a Call whose TwiML reads
 * the script and gathers the answer by speech or keypad. The connector's `endpoint` is the API's base URL
 * (https://api.twilio.com; a fake or Prism in tests), with the sender as its `From` (or `MessagingServiceSid`) query
 * parameter unless the action's input names `from`; its credential the vault's `<AccountSid>:<AuthToken>`. Status
 * callbacks, inbound SMS and the gathered answer come back to channels' provider callback route, signed with the auth
 * token (X-Twilio-Signature: base64 HMAC-SHA1 of the full URL and the sorted form parameters).
 *
 * Twilio's Messages and Calls take no idempotency key: a retry is made only where Twilio did not take the request
 * (429, 5xx, no answer), and each SID's callbacks land once however often Twilio sends them.
 */
import type twilio from 'twilio';
import type { ProviderAdapter, ProviderCallContext, ProviderEvent, ProviderResult } from './adapter.js';
import { providerCallbackUrl } from './callback-url.js';
import {
  loadTwilio,
  twilioClient,
  twilioCredential,
  twilioFailure,
  twilioSdk,
  type TwilioClientState,
} from './twilio-client.js';

/** What a Call's TwiML holds at most (Twilio's limit on the `Twiml` parameter is 4,000 characters). */
const MAX_SCRIPT_CHARS = 3000;
const ASK = 'Please say your answer after the tone, or press 1 for yes and 2 for no.';
const AUTH_TOKEN = /^[0-9a-fA-F]{32}$/;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

function required(input: Record<string, unknown>, names: string[], what: string): string {
  for (const n of names) if (text(input[n])) return text(input[n])!;
  throw new TypeError(`twilio: ${what} is required (${names.join(' or ')})`);
}

/** The sender: the input's `from`, else the connector endpoint's `From` or `MessagingServiceSid` query parameter. */
function sender(input: Record<string, unknown>, endpoint: string): { from?: string; messagingServiceSid?: string } {
  const given = text(input.from);
  if (given) return { from: given };
  const q = new URL(endpoint).searchParams;
  const service = q.get('MessagingServiceSid');
  if (q.get('From')) return { from: q.get('From')! };
  if (service) return { messagingServiceSid: service };
  throw new TypeError(
    'twilio: no sender: give the action input `from`, or the connector endpoint a From (or MessagingServiceSid) ' +
      'query parameter (https://api.twilio.com?From=%2B15005550006)',
  );
}

/** The TwiML of a mission's call: the script read out, the answer gathered by speech or keypad, sent to `action`. */
export function gatherTwiml(script: string, action: string, language = 'en-US'): string {
  const vr = new (twilioSdk().twiml.VoiceResponse)();
  const lang = language as 'en-US';
  const gather = vr.gather({
    input: ['speech', 'dtmf'],
    action,
    method: 'POST',
    numDigits: 1,
    timeout: 6,
    speechTimeout: 'auto',
    language: lang,
  });
  gather.say({ language: lang }, script.slice(0, MAX_SCRIPT_CHARS));
  gather.say({ language: lang }, ASK);
  vr.say({ language: lang }, 'We did not get an answer. Goodbye.');
  return vr.toString();
}

/** A Message's or Call's status in the adapter's words: taken (its outcome comes by callback), done, or refused. */
export function twilioOutcome(status: string): ProviderResult['status'] {
  if (status === 'delivered' || status === 'read' || status === 'completed') return 'succeeded';
  if (['failed', 'undelivered', 'canceled', 'busy', 'no-answer'].includes(status)) return 'failed';
  return 'pending';
}

function result(
  res: { sid: string; status: string; errorCode?: number | null; errorMessage?: string | null },
  answer: Record<string, unknown>,
): ProviderResult {
  const status = twilioOutcome(res.status);
  return {
    status,
    providerRef: res.sid,
    answer,
    ...(status === 'failed'
      ? {
          error: {
            code: res.errorCode ? `twilio${res.errorCode}` : res.status,
            message: res.errorMessage ?? `Twilio reports it ${res.status}`,
            transient: false,
          },
        }
      : {}),
  };
}

async function sms(client: twilio.Twilio, input: Record<string, unknown>, ctx: ProviderCallContext, url: string) {
  const m = await client.messages.create({
    to: required(input, ['to'], 'the recipient'),
    body: required(input, ['body', 'text', 'message'], 'the message'),
    ...sender(input, ctx.connector.endpoint),
    statusCallback: url,
  });
  const answer = { sid: m.sid, status: m.status, to: m.to, from: m.from, segments: m.numSegments, error: m.errorCode };
  return result(m, answer);
}

async function voice(client: twilio.Twilio, input: Record<string, unknown>, ctx: ProviderCallContext, url: string) {
  const script = required(input, ['script', 'prompt', 'text', 'message'], 'the script');
  const { from } = sender(input, ctx.connector.endpoint);
  if (!from) throw new TypeError('twilio: a call needs a From number (a Messaging Service cannot call)');
  const c = await client.calls.create({
    to: required(input, ['to', 'phone'], 'the number to call'),
    from,
    twiml: gatherTwiml(script, url, text(input.language) ?? undefined),
    // Without StatusCallbackEvent Twilio reports the call's end (`completed`, `busy`, `no-answer`, …) only.
    statusCallback: url,
    statusCallbackMethod: 'POST',
  });
  return result(c, { sid: c.sid, status: c.status, to: c.to, from: c.from });
}

/** A callback's form parameters; a repeated key keeps every value (the signature covers each). */
export function formParams(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** The callback's own id: a SID and the status it reports (a Message's, a Call's), or the SID of an inbound SMS. */
function externalIdOf(p: Record<string, string | string[]>): string | null {
  const [call, message] = [one(p.CallSid), one(p.MessageSid)];
  if (call && (p.SpeechResult !== undefined || p.Digits !== undefined)) return `${call}:gather`;
  if (call && p.CallStatus) return `${call}:${one(p.CallStatus)}`;
  if (message && p.MessageStatus && one(p.MessageStatus) !== 'received') return `${message}:${one(p.MessageStatus)}`;
  return message ?? null;
}

/** A keypad answer in words (the call asks: 1 for yes, 2 for no). */
const DIGIT_WORDS: Record<string, string> = { '1': 'yes', '2': 'no' };

function parseTwilio(raw: string): ProviderEvent[] {
  const p = formParams(raw);
  const get = (k: string) => one(p[k]) ?? null;
  const call = get('CallSid');
  const message = get('MessageSid');
  if (call && (get('SpeechResult') !== null || get('Digits') !== null)) {
    const digits = get('Digits') ?? '';
    const said = text(get('SpeechResult')) ?? DIGIT_WORDS[digits] ?? digits;
    // On the call the service placed, Twilio's `To` is the person who answered.
    const [from, to] = get('Direction') === 'inbound' ? [get('From'), get('To')] : [get('To'), get('From')];
    return [
      { kind: 'inbound', from: from ?? '', to, text: said, providerRef: call, inReplyTo: call, channel: 'voice' },
    ];
  }
  const status = get('CallStatus') ?? (get('MessageStatus') !== 'received' ? get('MessageStatus') : null);
  const ref = call ?? message;
  if (ref && status) {
    const outcome = twilioOutcome(status);
    const error = get('ErrorCode') ? `twilio${get('ErrorCode')}` : outcome === 'failed' ? status : undefined;
    const mapped = outcome === 'succeeded' ? 'delivered' : outcome;
    return [{ kind: 'deliveryStatus', providerRef: ref, status: mapped, ...(error ? { error } : {}) }];
  }
  if (message && get('Body') !== null)
    return [
      {
        kind: 'inbound',
        from: get('From') ?? '',
        to: get('To'),
        text: get('Body')!,
        providerRef: message,
        inReplyTo: null,
        channel: 'sms',
      },
    ];
  return [];
}

function clientOf(ctx: ProviderCallContext) {
  const credential = twilioCredential(ctx.secret);
  if (!credential)
    throw new TypeError("twilio: the connector's credential must be the vault value <AccountSid>:<AuthToken>");
  return twilioClient(ctx.connector, credential, ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS, ctx.signal);
}

export const twilioAdapter: ProviderAdapter = {
  kind: 'twilio',
  capabilities: ['msg.sms', 'msg.voice'],
  async call(capability, input, ctx) {
    const url = providerCallbackUrl(
      ctx.deps.config,
      ctx.accountId ?? ctx.connector.account_id,
      ctx.connector.connector_id,
    );
    let state: TwilioClientState = { retryAfterMs: null };
    try {
      const made = await clientOf(ctx);
      state = made.state;
      if (capability === 'msg.sms') return await sms(made.client, input, ctx, url);
      if (capability === 'msg.voice') return await voice(made.client, input, ctx, url);
    } catch (err) {
      if (err instanceof TypeError)
        return {
          status: 'failed',
          providerRef: null,
          answer: {},
          error: { code: 'invalidInput', message: err.message, transient: false },
        };
      return { status: 'failed', providerRef: null, answer: {}, error: twilioFailure(err, state) };
    }
    throw new TypeError(`twilio does not do ${capability}`);
  },
  verifyCallback(callback, signingSecret) {
    if (!/^application\/x-www-form-urlencoded\b/i.test(callback.contentType))
      return { ok: false, reason: 'Twilio callbacks are form-encoded (application/x-www-form-urlencoded)' };
    const signature = callback.headers['x-twilio-signature'];
    if (!signature) return { ok: false, reason: 'unsigned: no X-Twilio-Signature header' };
    const params = formParams(callback.rawBody);
    if (!twilioSdk().validateRequest(signingSecret, signature, callback.url, params))
      return { ok: false, reason: 'X-Twilio-Signature does not match the URL and parameters' };
    const externalId = externalIdOf(params);
    return externalId ? { ok: true, externalId } : { ok: false, reason: 'the callback names no MessageSid or CallSid' };
  },
  parseCallback: (callback) => parseTwilio(callback.rawBody),
  signingSecretProblem: (secret) =>
    AUTH_TOKEN.test(secret)
      ? null
      : "a Twilio connector's signingSecret is its account's auth token (32 hex characters), the key Twilio signs " +
        'X-Twilio-Signature with; leave it out to verify with the auth token of the connector credential',
  signingSecretFromCredential: (credential) => twilioCredential(credential)?.authToken ?? null,
  load: async () => void (await loadTwilio()),
  callbackReply(events) {
    // Twilio reads the answer as TwiML: after a gathered answer the call thanks and hangs up; anything else, nothing.
    if (events.some((e) => e.kind === 'inbound' && e.channel === 'voice')) {
      const vr = new (twilioSdk().twiml.VoiceResponse)();
      vr.say('Thank you, we have your answer. Goodbye.');
      vr.hangup();
      return { contentType: 'text/xml', body: vr.toString() };
    }
    return { contentType: 'text/xml', body: new (twilioSdk().twiml.MessagingResponse)().toString() };
  },
};
