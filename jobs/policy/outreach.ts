import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { OutreachEvaluate } from './compliance-schemas.js';
import type { OUTREACH_RULES } from './compliance-schemas.js';
import { normalizePhone } from '../../shared/phone.js';

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

export function evaluateOutreach(input: OutreachEvaluate, suppressed: boolean, now: Date): OutreachVerdict {
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
  const until =
    INTRUSIVE.has(input.channel) && input.recipientTimezone ? quietHoursEnd(now, input.recipientTimezone) : null;
  if (until) {
    const window = `${QUIET_HOURS.startHour}:00-0${QUIET_HOURS.endHour}:00`;
    return {
      decision: 'defer',
      reasons: [
        {
          rule: 'outreach.quietHours',
          message: `quiet hours (${window}) in ${input.recipientTimezone}: not before ${until.toISOString()}`,
        },
      ],
      notBefore: until,
    };
  }
  return {
    decision: 'allow',
    reasons: [
      { rule: 'outreach.allowed', message: `lawful basis ${input.lawfulBasis}; not suppressed; outside quiet hours` },
    ],
    notBefore: null,
  };
}
