import { fullFormats } from 'ajv-formats/dist/formats.js';
import addressparser from 'nodemailer/lib/addressparser';
import { phonesIn } from '../../shared/phone.js';

/**
 * How the bridge step reads a request, pure and deterministic: which channel it asks for (its verb, or "by email",
 * "via SMS", or else the kind of address it names), who receives it (email addresses through nodemailer's address
 * parser, checked with the same email format the outreach gate uses; phone numbers through libphonenumber; a Slack
 * `#channel`), what to say, and any capability it names outright (`crm.create`).
 */

export const STEP_CHANNELS = ['email', 'sms', 'voice', 'chat'] as const;
export type StepChannel = (typeof STEP_CHANNELS)[number];

/** The capabilities a channel is performed with, the provider adapters' first, then the generic ones. */
export const CHANNEL_CAPABILITIES: Record<StepChannel, readonly string[]> = {
  email: ['msg.email', 'email.send'],
  sms: ['msg.sms', 'sms.send'],
  voice: ['msg.voice', 'voice.call'],
  chat: ['msg.chat', 'chat.post'],
};

/** What each channel is called in a request: its verb at the start, and its noun after by/via/over/through/a(n). */
const CHANNEL_WORDS: Record<StepChannel, { verbs: string; nouns: string }> = {
  email: { verbs: 'e-?mail|mail', nouns: 'e-?mail|mail' },
  sms: { verbs: 'text|sms|txt', nouns: 'text(?: message)?|sms|txt' },
  voice: { verbs: 'call|phone|ring|dial', nouns: '(?:phone |voice )?call|phone|voice' },
  chat: { verbs: 'post|slack|dm', nouns: 'slack|chat|dm|teams' },
};

const LEAD = String.raw`^\s*(?:(?:please|pls|kindly|can you|could you)\s+)*`;

const EMAIL = fullFormats.email as RegExp;
/** A Slack channel named `#ops`, or in words "the ops channel". */
const HASH_CHANNEL = /(?:^|[\s(])#([a-z0-9][a-z0-9._-]{0,79})/i;
const WORDED_CHANNEL = /\b(?:in|to|on|into)\s+(?:the\s+)?([a-z0-9][a-z0-9_-]{0,79})\s+(?:slack\s+)?channel\b/i;
/** `<area>.<verb>` standing alone (not part of an address, a host or a path). */
const CAPABILITY_TOKEN = /(?<![\w@./-])([a-z][A-Za-z0-9]{1,49}\.[a-z][A-Za-z0-9]{1,49})(?![\w@/-]|\.[A-Za-z0-9])/g;

export interface Recipient {
  kind: 'email' | 'phone' | 'chat';
  value: string;
}

export interface StepRequest {
  /** The channel the request asks for, or the one its only kind of address implies; null when it names none. */
  channel: StepChannel | null;
  /** How the channel was read: its verb, a "by …" phrase, or the address. */
  channelFrom: 'verb' | 'phrase' | 'address' | null;
  /** Capabilities written out in the request, in order (the step keeps those a connector of the account has). */
  named: string[];
  emails: string[];
  phones: string[];
  chats: string[];
  /** What to say: quoted text, what follows "that"/"saying"/":", else the rest once verb and recipient are gone. */
  message: string | null;
}

/** Email addresses in free text, lower case, distinct, in order. */
export function emailsIn(text: string): string[] {
  const found = addressparser(text, { flatten: true })
    .map((a) => a.address.replace(/^[.'"(<]+|[.,;:'")>]+$/g, '').toLowerCase())
    .filter((a) => a.includes('@') && EMAIL.test(a));
  return [...new Set(found)];
}

function chatsIn(text: string): string[] {
  const hash = HASH_CHANNEL.exec(text)?.[1];
  const worded = WORDED_CHANNEL.exec(text)?.[1];
  return [...new Set([hash, worded].filter((c): c is string => Boolean(c)).map((c) => `#${c.toLowerCase()}`))];
}

/** The channel by the earliest way the request names it: a leading verb, "by/via … <noun>", "send … a(n) <noun>". */
function channelNamed(text: string): { channel: StepChannel; from: 'verb' | 'phrase' } | null {
  let best: { channel: StepChannel; from: 'verb' | 'phrase'; at: number } | null = null;
  for (const channel of STEP_CHANNELS) {
    const { verbs, nouns } = CHANNEL_WORDS[channel];
    const verb = new RegExp(`${LEAD}(?:${verbs})\\b`, 'i').exec(text);
    if (verb && (!best || best.at > 0)) best = { channel, from: 'verb', at: 0 };
    const phrase = [
      `\\b(?:by|via|over|through|per)\\s+(?:an?\\s+|the\\s+)?(?:${nouns})\\b`,
      `\\b(?:send|drop|leave|give)\\s+(?:\\w+\\s+)?an?\\s+(?:${nouns})\\b`,
      ...(channel === 'chat' ? ['\\b(?:on|in)\\s+(?:the\\s+)?(?:slack|teams)\\b'] : []),
    ]
      .map((p) => new RegExp(p, 'i').exec(text))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((x, y) => x.index - y.index)[0];
    if (phrase && !verb && (!best || phrase.index < best.at)) best = { channel, from: 'phrase', at: phrase.index };
  }
  return best ? { channel: best.channel, from: best.from } : null;
}

const ANY_VERB = new RegExp(
  `${LEAD}(?:send|${Object.values(CHANNEL_WORDS)
    .map((w) => w.verbs)
    .join('|')})\\b`,
  'i',
);

/** The text without its recipients ("to accounting@…", "at +1 415…", "in the ops channel") and channel phrases. */
function withoutRecipients(text: string, recipients: string[]): string {
  let rest = text;
  for (const r of recipients) {
    const escaped = r.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    rest = rest.replace(new RegExp(`\\s*\\b(?:to|at|for|on|in)?\\s*(?:the\\s+)?${escaped}(?:\\s+channel)?`, 'i'), ' ');
  }
  return rest.replace(/\b(?:by|via|over|through|in|on)\s+(?:e-?mail|sms|text|slack|phone)\b/gi, ' ');
}

/** What to say: quoted, after "that/saying/say/:", else what is left once the verb and "to <recipient>" are cut. */
export function messageOf(text: string, recipients: string[]): string | null {
  const quoted = /["“”«]([^"“”«»]{1,2000})["“”»]/.exec(text)?.[1];
  if (quoted?.trim()) return quoted.trim();
  const after = /(?:\bthat|\bsay(?:ing)?|\btell(?:ing)? (?:them|him|her)|:)\s+(.+)$/is.exec(text)?.[1];
  if (after?.trim()) return tidy(withoutRecipients(after, recipients)) || null;
  return tidy(withoutRecipients(text.replace(ANY_VERB, ''), recipients)) || null;
}

const tidy = (s: string) =>
  s
    .replace(/\s+/g, ' ')
    .replace(/^[\s,;:-]+|[\s,;:.-]+$/g, '')
    .trim();

/** Reads a request (the part the router chose bridge for); `country` lets a national phone number count. */
export function readStepRequest(text: string, country?: unknown): StepRequest {
  const emails = emailsIn(text);
  const phones = phonesIn(text, country);
  const chats = chatsIn(text);
  const named = [...text.matchAll(CAPABILITY_TOKEN)]
    .map((m) => m[1]!)
    .filter((c) => !emails.some((e) => e.endsWith(c)));
  const said = channelNamed(text);
  const implied: StepChannel | null =
    emails.length && !phones.length && !chats.length
      ? 'email'
      : phones.length && !emails.length && !chats.length
        ? 'sms'
        : chats.length && !emails.length && !phones.length
          ? 'chat'
          : null;
  const channel = said?.channel ?? implied;
  const stripped = named.reduce((t, c) => t.replace(c, ' '), text);
  return {
    channel,
    channelFrom: said?.from ?? (implied ? 'address' : null),
    named: [...new Set(named)],
    emails,
    phones,
    chats,
    message: messageOf(stripped, [...emails, ...phones, ...phonesAsWritten(text), ...chats]),
  };
}

/** Phone numbers as the request wrote them, so the message does not keep "+1 415 555 0100" (the recipient). */
function phonesAsWritten(text: string): string[] {
  return [...text.matchAll(/\+\d[\d ().-]{5,}\d/g)].map((m) => m[0]);
}

/** The recipient a channel goes to: its first address of the right kind; null when the request names none. */
export function recipientFor(channel: StepChannel, req: StepRequest): Recipient | null {
  if (channel === 'email') return req.emails[0] ? { kind: 'email', value: req.emails[0] } : null;
  if (channel === 'chat') return req.chats[0] ? { kind: 'chat', value: req.chats[0] } : null;
  return req.phones[0] ? { kind: 'phone', value: req.phones[0] } : null;
}

/** A subject line for an email: the message's first sentence, capitalised, at most 78 characters. */
export function subjectOf(message: string): string {
  const first = message.split(/(?<=[.!?])\s/)[0]!.trim();
  const cut = first.length > 78 ? `${first.slice(0, 75).trimEnd()}…` : first;
  return cut.charAt(0).toUpperCase() + cut.slice(1);
}

/** The provider's input: `to`, `subject`, `text` (email); `channel`, `text` (chat); `to`, `text` (SMS, call). */
export function channelInput(channel: StepChannel, recipient: Recipient, message: string): Record<string, unknown> {
  if (channel === 'email') return { to: recipient.value, subject: subjectOf(message), text: message };
  if (channel === 'chat') return { channel: recipient.value, text: message };
  return { to: recipient.value, text: message };
}
