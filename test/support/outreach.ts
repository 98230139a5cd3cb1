import { getCountry } from 'countries-and-timezones';
import { getCountries, getExampleNumber } from 'libphonenumber-js';
import examples from 'libphonenumber-js/mobile/examples';

/**
 * A fixed-offset IANA zone (Etc/GMT±N) whose local hour is `hour` right now; the offsets span 26 hours, so one always
 * exists.
 */
export function zoneAtLocalHour(hour: number): string {
  const utc = new Date().getUTCHours();
  for (let offset = -12; offset <= 14; offset++) {
    if ((((utc + offset) % 24) + 24) % 24 === hour)
      return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
  }
  throw new Error(`no zone at local hour ${hour}`);
}

/** The `outreach` object of an action that passes the gate whenever it runs: a lawful basis, and midday there. */
export const daytimeOutreach = () => ({ lawfulBasis: 'contract', recipientTimezone: zoneAtLocalHour(12) });

const localHour = (zone: string, now: Date) =>
  Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(now));

/**
 * A mobile number (E.164) of a country with a single time zone whose local hour right now is within [from, to), and
 * that zone; null when no country fits (the hours asked for span most offsets, so one always does in practice).
 */
export function numberWhereLocalHourIs(from: number, to: number): { number: string; zone: string } | null {
  const now = new Date();
  for (const country of getCountries()) {
    const zones = getCountry(country)?.timezones ?? [];
    if (zones.length !== 1) continue;
    const hour = localHour(zones[0]!, now);
    const example = getExampleNumber(country, examples);
    if (example && example.country === country && hour >= from && hour < to)
      return { number: example.number as string, zone: zones[0]! };
  }
  return null;
}
