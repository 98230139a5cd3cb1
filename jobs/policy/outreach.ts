import { fullFormats } from 'ajv-formats/dist/formats.js';
import { getCountry } from 'countries-and-timezones';
import type { OutreachEvaluate } from './compliance-schemas.js';
import type { OUTREACH_RULES } from './compliance-schemas.js';
import { normalizePhone, phoneCountry, phonesIn } from '../../shared/phone.js';

/**
 * Outreach compliance, pure: who may be contacted, how and when. Every rule
 * that denies is reported (not only the first), so a caller fixes them all
 * at once; quiet hours only defer, and only when nothing denies.
 */

export type OutreachRule = (typeof OUTREACH_RULES)[number];
export interface OutreachReason {
  rule: OutreachRule;
  message: string;
}
export interface OutreachVerdict {
  decision: 'allow' | 'deny' | 'defer';
  reasons: OutreachReason[];
  notBefore: Date | null;
}

/** Quiet hours in the recipient's local time: from 21:00 until 08:00 (Ofcom / TCPA-style calling windows). */
export const QUIET_HOURS = { startHour: 21, endHour: 8 } as const;
/** Channels that interrupt someone: calls and texts wait out quiet hours, email and messages do not. */
const INTRUSIVE = new Set(['call', 'sms']);

const EMAIL = fullFormats.email as RegExp;

/** A recipient as it is stored and compared: an email in lower case, a phone as E.164; null when it is neither. */
export function normaliseRecipient(raw: string): string | null {
  const value = raw.trim();
  if (value.includes('@')) return EMAIL.test(value) ? value.toLowerCase() : null;
  return normalizePhone(value);
}

/** At most this many recipients are evaluated for one action; an input naming more is refused. */
export const MAX_RECIPIENTS = 10;

/** Where an email address may end in free text: blanks, brackets, quotes and list separators. */
const EMAIL_BOUNDARY = /[\s<>()[\]{},;:"'`|\\]+/;

/** The recipients one string names: itself when it is one, else every phone number and email address in it. */
function recipientsInText(text: string): string[] {
  const whole = text.length <= 320 ? normaliseRecipient(text) : null;
  if (whole) return [whole];
  const emails = text
    .split(EMAIL_BOUNDARY)
    .map((token) => token.replace(/^\.+|\.+$/g, ''))
    .filter((token) => token.includes('@') && EMAIL.test(token))
    .map((token) => token.toLowerCase());
  return [...phonesIn(text), ...emails];
}

/**
 * Every person an action's input could reach: each phone number (international form, found by libphonenumber's
 * findNumbers) and email address in any string of it, keys included, at any depth, whatever the field is called:
 * the gate cannot know which field a provider's adapter sends to. Normalised, distinct, in the order found.
 */
export function recipientsIn(input: unknown): string[] {
  const found = new Set<string>();
  const stack: unknown[] = [input];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') for (const r of recipientsInText(value)) found.add(r);
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]![1], entries[i]![0]);
    }
  }
  return [...found];
}

/** The time zone quiet hours are checked in, and where it came from. */
export interface RecipientZone {
  zone: string;
  /** `given`: recipientTimezone; a country code: read from the phone number's country. */
  from: string;
}

/** Minutes since local midnight in `zone` at `now`. */
function localMinutes(now: Date, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute');
}

/**
 * The recipient's time zone when the request does not give one: a phone number's country, when every time zone of
 * that country shows the same local time at `now` (Germany's Berlin and Büsingen do, Spain's Madrid and Canaries do
 * not); null otherwise (several zones, a non-geographic number, an email address).
 */
export function zoneOfRecipient(recipient: string, now: Date): RecipientZone | null {
  if (recipient.includes('@')) return null;
  const country = phoneCountry(recipient);
  const zones = country ? (getCountry(country)?.timezones ?? []) : [];
  if (zones.length === 0) return null;
  const local = localMinutes(now, zones[0]!);
  return zones.every((z) => localMinutes(now, z) === local) ? { zone: zones[0]!, from: country! } : null;
}

/** When quiet hours in `zone` end, if `now` falls in them; null otherwise. */
export function quietHoursEnd(now: Date, zone: string): Date | null {
  const minutes = localMinutes(now, zone);
  const start = QUIET_HOURS.startHour * 60;
  const end = QUIET_HOURS.endHour * 60;
  if (minutes < start && minutes >= end) return null;
  const wait = minutes >= start ? 24 * 60 - minutes + end : end - minutes;
  const at = new Date(now.getTime() + wait * 60_000);
  at.setUTCSeconds(0, 0);
  return at;
}

/**
 * Deny rules first (all of them); then, for a call or a text, quiet hours in `zone` (the given recipientTimezone, else
 * the phone number's country), and a deferral without `notBefore` when there is no zone to check them in.
 */
export function evaluateOutreach(
  input: OutreachEvaluate,
  suppressed: boolean,
  now: Date,
  zone: RecipientZone | null,
): OutreachVerdict {
  const deny: OutreachReason[] = [];
  if (suppressed)
    deny.push({ rule: 'outreach.suppressed', message: "the recipient is on this account's suppression list" });
  if (!input.lawfulBasis)
    deny.push({ rule: 'outreach.noLawfulBasis', message: 'no lawful basis given for contacting the recipient' });
  if (input.channel === 'call' && input.consentToCall !== true)
    deny.push({
      rule: 'outreach.noConsentForCall',
      message: "a call needs the recipient's consent to be called (consentToCall: true)",
    });
  else if (input.lawfulBasis === 'consent' && input.consent !== true && input.consentToCall !== true) {
    deny.push({
      rule: 'outreach.noConsent',
      message: "the lawful basis is consent but the recipient's consent is not given (consent: true)",
    });
  }
  if (deny.length > 0) return { decision: 'deny', reasons: deny, notBefore: null };
  const intrusive = INTRUSIVE.has(input.channel);
  if (intrusive && !zone) {
    const message =
      `the recipient's time zone is unknown (${input.recipient} is not a phone number of a country with one ` +
      'time zone), so quiet hours cannot be checked: give outreach.recipientTimezone (IANA, e.g. Europe/Berlin)';
    return { decision: 'defer', reasons: [{ rule: 'outreach.unknownTimezone', message }], notBefore: null };
  }
  const until = intrusive && zone ? quietHoursEnd(now, zone.zone) : null;
  if (until && zone) {
    const window = `${QUIET_HOURS.startHour}:00-0${QUIET_HOURS.endHour}:00`;
    const where = zone.from === 'given' ? zone.zone : `${zone.zone} (the number's country, ${zone.from})`;
    const message = `quiet hours (${window}) in ${where}: not before ${until.toISOString()}`;
    return { decision: 'defer', reasons: [{ rule: 'outreach.quietHours', message }], notBefore: until };
  }
  return {
    decision: 'allow',
    reasons: [
      { rule: 'outreach.allowed', message: `lawful basis ${input.lawfulBasis}; not suppressed; outside quiet hours` },
    ],
    notBefore: null,
  };
}
