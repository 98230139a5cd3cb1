import {
  findPhoneNumbersInText,
  isSupportedCountry,
  parsePhoneNumberFromString,
  type CountryCode,
} from 'libphonenumber-js';

/** Phone numbers as E.164: proxy reads them from requests, policy compares outreach recipients by them. */

const asCountry = (country: unknown): CountryCode | undefined =>
  typeof country === 'string' && isSupportedCountry(country.toUpperCase())
    ? (country.toUpperCase() as CountryCode)
    : undefined;

/** Phone numbers in free text, as E.164 (`+49305550123`); national forms need the caller's country. */
export function phonesIn(text: string, country?: unknown): string[] {
  return [...new Set(findPhoneNumbersInText(text, asCountry(country)).map((m) => m.number.number as string))];
}

/** The country (ISO 3166-1 alpha-2) a phone number belongs to; null for a non-geographic one (+800…) or no number. */
export function phoneCountry(raw: string): string | null {
  return parsePhoneNumberFromString(raw)?.country ?? null;
}

/** One phone number as E.164, or null when it is not a possible number. */
export function normalizePhone(raw: unknown, country?: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const parsed = parsePhoneNumberFromString(raw, asCountry(country));
  return parsed?.isPossible() ? (parsed.number as string) : null;
}
