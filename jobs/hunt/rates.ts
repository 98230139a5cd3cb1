import { XMLParser } from 'fast-xml-parser';
import type { Deps } from '../../shared/deps.js';
import { egressFetch } from '../../shared/http/egress.js';
import snapshot from './ecb-reference-rates.json' with { type: 'json' };
import { newestRates, storeRates } from './manners-repository.js';
import type { RateTable } from './money.js';

/**
 * The rates hunt compares prices with: the newest day the `hunt.rates` sweep stored (when ECB_RATES_URL is set), else
 * the dated snapshot shipped with the service (a real ECB day; its date is shown beside every converted figure).
 */
export const SNAPSHOT: RateTable = { date: snapshot.date, source: snapshot.source, rates: snapshot.rates };

export async function currentRates(deps: Pick<Deps, 'db'>): Promise<RateTable> {
  const rows = await newestRates(deps.db);
  if (!rows) return SNAPSHOT;
  return {
    date: rows[0]!.day,
    source: rows[0]!.source,
    rates: Object.fromEntries(rows.map((r) => [r.currency, r.rate])),
  };
}

/**
 * The ECB's eurofxref XML (`gesmes:Envelope` > `Cube` > `Cube time=…` > `Cube currency=… rate=…`) as a table; a
 * TypeError when it is not that shape (a maintenance page, a changed format) so nothing half-read is stored.
 */
export function parseEcbXml(xml: string, source: string): RateTable {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true }).parse(xml) as {
    Envelope?: { Cube?: { Cube?: unknown } };
  };
  const dayNode = doc.Envelope?.Cube?.Cube;
  const day = (Array.isArray(dayNode) ? dayNode[0] : dayNode) as { time?: unknown; Cube?: unknown } | undefined;
  if (!day || typeof day.time !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(day.time))
    throw new TypeError('not the ECB reference rates format (no dated Cube)');
  const rates: Record<string, string> = {};
  for (const c of [day.Cube].flat() as Array<{ currency?: unknown; rate?: unknown }>) {
    if (typeof c?.currency === 'string' && /^[A-Z]{3}$/.test(c.currency) && /^\d+(\.\d+)?$/.test(String(c.rate)))
      if (Number(c.rate) > 0) rates[c.currency] = String(c.rate);
  }
  if (Object.keys(rates).length === 0) throw new TypeError('the ECB file names no rates');
  return { date: day.time, source, rates };
}

/**
 * The `hunt.rates` sweep: fetches the ECB daily file from ECB_RATES_URL (unset: does nothing) through the guarded
 * egress client and stores its day. A failed fetch keeps the last stored day (or the snapshot) in use.
 */
export async function fetchRates(deps: Pick<Deps, 'db' | 'config' | 'log'>) {
  const url = deps.config.ECB_RATES_URL;
  if (!url) return { skipped: 'ECB_RATES_URL is not set' };
  const res = await egressFetch(deps.config.AWP_ALLOW_PRIVATE_EGRESS, url, {
    headers: { accept: 'application/xml,text/xml' },
    timeoutMs: 15_000,
    maxBytes: 256 * 1024,
    oversize: 'refuse',
  });
  if (res.status !== 200) throw new Error(`the ECB rates answered HTTP ${res.status}`);
  const table = parseEcbXml(res.text, url);
  const stored = await storeRates(
    deps.db,
    Object.entries(table.rates).map(([currency, rate]) => ({ day: table.date, currency, rate, source: url })),
  );
  return { day: table.date, currencies: Object.keys(table.rates).length, stored };
}
