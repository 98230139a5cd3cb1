import canonicalize from 'canonicalize';
import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** Pure helpers of case workspaces: contact identity, timeline cursors, and a run's case reference. */

/**
 * A stakeholder's contact as it is compared for duplicates: the email in
 * lower case, the phone as E.164. A phone that is not a possible number
 * (it must be in international form, +...) comes back as `badPhone`.
 */
export function contactIdentity(contact: { email?: string; phone?: string }): {
  email: string | null;
  phone: string | null;
  badPhone: boolean;
} {
  const email = contact.email ? contact.email.trim().toLowerCase() : null;
  if (!contact.phone) return { email, phone: null, badPhone: false };
  const parsed = parsePhoneNumberFromString(contact.phone);
  return parsed?.isPossible()
    ? { email, phone: parsed.number as string, badPhone: false }
    : { email, phone: null, badPhone: true };
}

/** A timeline position as an opaque cursor: `at` in microseconds and the entry id. */
export function encodeTimelineCursor(pos: { atUs: string; id: string }): string {
  return Buffer.from(`${pos.atUs}|${pos.id}`, 'utf8').toString('base64url');
}

/** The position of a cursor, or null when it is not one this service made. */
export function decodeTimelineCursor(cursor: string): { atUs: string; id: string } | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^(-?\d{1,19})\|([A-Za-z0-9_]{1,200})$/.exec(text);
  return m ? { atUs: m[1]!, id: m[2]! } : null;
}

const str = (v: unknown, max: number) => (typeof v === 'string' && v.trim() && v.length <= max ? v.trim() : undefined);

/**
 * The case a run asks to be linked to, from its metadata: `caseId` (an
 * existing case) or `caseKey` (an external key: the case is opened under it
 * when the account has none, titled `caseTitle` or the request).
 */
export function caseRefOf(
  metadata: Record<string, unknown>,
): { caseId: string } | { externalKey: string; title?: string } | null {
  const caseId = str(metadata.caseId, 200);
  if (caseId) return { caseId };
  const externalKey = str(metadata.caseKey, 200);
  return externalKey ? { externalKey, title: str(metadata.caseTitle, 500) } : null;
}

/**
 * The names of the fields a change sets to a value other than the current
 * one, compared as canonical JSON (RFC 8785): Postgres' jsonb reorders object
 * keys, and the same value sent again must not count as a change.
 */
export function changedFields(current: Record<string, unknown>, change: Record<string, unknown>): string[] {
  return Object.entries(change)
    .filter(([k, v]) => v !== undefined && canonicalize(v) !== canonicalize(current[k] ?? null))
    .map(([k]) => k);
}
