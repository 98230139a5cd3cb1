import type { RefusalReason, ResolveRule } from './mandate-schemas.js';

/**
 * Pure rules of the pay domain: money in minor units, the mandate checks a
 * settlement must pass, and the evidence a mandate's `resolveRules` ask for.
 * No I/O: the settlement service reads the rows, these decide.
 */

/** Cite strings of pay's records (the proof card's are in jobs/orchestrator/proof.ts). */
export const cites = {
  receipt: (id: string) => `awp:receipt:${id}#v1`,
  proofPack: (id: string) => `awp:proofPack:${id}#v1`,
};

const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export function isKnownCurrency(code: string): boolean {
  return KNOWN_CURRENCIES.has(code);
}

/** Digits after the decimal point in `currency` (ISO 4217 via ICU): USD 2, JPY 0, BHD 3. */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** 12.5 USD → 1250; null when the amount is finer than the currency's minor unit (12.345 USD). */
export function toMinor(amount: number, currency: string): number | null {
  const digits = minorDigits(currency);
  // Decimals counted on the number as written (its shortest round-trip form), not on the binary float: 0.07 is 7 cents.
  const [mantissa, exponent] = amount.toString().toLowerCase().split('e');
  const decimals = Math.max(0, (mantissa!.split('.')[1]?.length ?? 0) - Number(exponent ?? 0));
  return decimals > digits ? null : Math.round(amount * 10 ** digits);
}

export function toMajor(minor: number, currency: string): number {
  const digits = minorDigits(currency);
  return Number((minor / 10 ** digits).toFixed(digits));
}

export function formatMoney(minor: number, currency: string): string {
  return `${toMajor(minor, currency).toFixed(minorDigits(currency))} ${currency}`;
}

/** Vendor names are compared as people write them: Unicode-normalized, trimmed, case-insensitive. */
export function sameVendor(a: string, b: string): boolean {
  const norm = (s: string) => s.normalize('NFKC').trim().toLowerCase();
  return norm(a) === norm(b);
}

/** What the task's evidence says about the candidate being paid for. */
export interface PurchaseEvidence {
  /** The chosen candidate, with the listing text it came with; null when nothing was chosen. */
  candidate: { itemId: string; title: string; feesMinor: number | null; text: string } | null;
  /** Candidate ids an audit (resolve) flagged for fees over 20 % of the price. */
  flaggedHiddenFees: string[];
  /** Availability a step confirmed (a proxy outcome, a provider answer), if any. */
  availability: { status: string; source: string } | null;
}

// A fee named without an amount next to it: "plus shipping", "service fee applies", "cleaning fee extra".
const FEE_MENTION = new RegExp(
  [
    String.raw`\b(?:plus\s+(?:shipping|delivery|handling|tax(?:es)?|fees?)|(?:shipping`,
    String.raw`|delivery|handling|service|booking|cleaning|resort|processing|convenience`,
    String.raw`|admin(?:istration)?|setup|installation|card)\s+(?:fees?|charges?|costs?)`,
    String.raw`|surcharges?|fees?\s+(?:apply|extra|not included|may apply))\b`,
  ].join(''),
  'gi',
);
// Mentions that say there is no fee: "no service fee", "free shipping", "fees included".
const NO_FEE_BEFORE = /\b(?:no|free|without|zero|waived|included)\s+$/i;
const FEE_INCLUDED_AFTER = /^\s*(?:included|waived|free)\b/i;

/** Fees the listing text names but does not price (when the listing carries no fee amount). */
export function unpricedFees(text: string, feesMinor: number | null): string[] {
  if (feesMinor !== null && feesMinor > 0) return [];
  const found: string[] = [];
  for (const m of text.matchAll(FEE_MENTION)) {
    const before = text.slice(Math.max(0, m.index - 12), m.index);
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 12);
    if (!NO_FEE_BEFORE.test(before) && !FEE_INCLUDED_AFTER.test(after)) found.push(m[0].toLowerCase());
  }
  return [...new Set(found)];
}

const IN_STOCK =
  /\b(?:in[ -]stock|available now|ready to ship|ships (?:today|immediately)|\d+\s+(?:left|available|in stock))\b/i;
const NOT_IN_STOCK = /\b(?:out of stock|sold out|back-?order(?:ed)?|pre-?order|unavailable|discontinued)\b/i;
const CONFIRMED = /^(?:available|in ?stock|confirmed|confirmedSuccess)$/i;

/**
 * Where availability is confirmed: a step that confirmed it, else the listing's own statement (and nothing that
 * contradicts it).
 */
export function availabilityConfirmed(evidence: PurchaseEvidence): { confirmed: boolean; by: string } {
  if (evidence.availability && CONFIRMED.test(evidence.availability.status))
    return { confirmed: true, by: evidence.availability.source };
  const text = evidence.candidate?.text ?? '';
  if (IN_STOCK.test(text) && !NOT_IN_STOCK.test(text))
    return { confirmed: true, by: 'the listing states it is in stock' };
  return { confirmed: false, by: '' };
}

/** The resolve rules the evidence does not satisfy, each with the reason. */
export function unmetResolveRules(
  rules: readonly string[],
  evidence: PurchaseEvidence,
): Array<{ rule: ResolveRule; message: string }> {
  const unmet: Array<{ rule: ResolveRule; message: string }> = [];
  const c = evidence.candidate;
  for (const rule of rules) {
    if (rule === 'hiddenFeeClear') {
      if (!c) unmet.push({ rule, message: "no chosen candidate in the task's evidence to check for hidden fees" });
      else if (evidence.flaggedHiddenFees.includes(c.itemId))
        unmet.push({ rule, message: `the audit flagged "${c.title}" for fees over 20 % of its price` });
      else {
        const fees = unpricedFees(c.text, c.feesMinor);
        if (fees.length > 0)
          unmet.push({ rule, message: `"${c.title}" names a fee it does not price (${fees.join(', ')})` });
      }
    }
    if (rule === 'inventoryVerified') {
      if (!c)
        unmet.push({
          rule,
          message: "no chosen candidate in the task's evidence whose availability could be confirmed",
        });
      else if (!availabilityConfirmed(evidence).confirmed)
        unmet.push({ rule, message: `availability of "${c.title}" was not confirmed` });
    }
  }
  return unmet;
}

/** A mandate as the checks see it (read under its row lock). */
export interface MandateState {
  id: string;
  taskId: string;
  currency: string;
  maxMinor: number;
  spentMinor: number;
  allowedVendors: string[] | null;
  resolveRules: string[];
  status: string;
  expired: boolean;
}

export interface SettlementAsk {
  taskId: string;
  vendorId: string;
  amountMinor: number;
  currency: string;
}

export interface Refusal {
  reason: RefusalReason;
  message: string;
  details: Record<string, unknown>;
}

/**
 * The first mandate rule a settlement breaks, or null when it may settle.
 * Checked in this order: revoked, expired, task, currency, vendor, budget,
 * resolve rules.
 */
export function settlementRefusal(m: MandateState, ask: SettlementAsk, evidence: PurchaseEvidence): Refusal | null {
  const refuse = (reason: RefusalReason, message: string, details: Record<string, unknown> = {}): Refusal => ({
    reason,
    message,
    details: { reason, mandateId: m.id, ...details },
  });
  if (m.status === 'revoked') return refuse('mandateRevoked', `Mandate ${m.id} was revoked; it settles nothing`);
  if (m.expired) return refuse('mandateExpired', `Mandate ${m.id} has expired; it settles nothing`);
  if (m.taskId !== ask.taskId)
    return refuse('taskMismatch', `Mandate ${m.id} is granted for task ${m.taskId}, not ${ask.taskId}`, {
      mandateTaskId: m.taskId,
    });
  if (m.currency !== ask.currency)
    return refuse('currencyMismatch', `Mandate ${m.id} is in ${m.currency}; this settlement is in ${ask.currency}`, {
      mandateCurrency: m.currency,
      currency: ask.currency,
    });
  if (m.allowedVendors && !m.allowedVendors.some((v) => sameVendor(v, ask.vendorId))) {
    return refuse('vendorNotAllowed', `Vendor ${ask.vendorId} is not in mandate ${m.id}'s allowedVendors`, {
      vendorId: ask.vendorId,
      allowedVendors: m.allowedVendors,
    });
  }
  const remaining = m.maxMinor - m.spentMinor;
  if (ask.amountMinor > remaining) {
    return refuse(
      'overBudget',
      `${formatMoney(ask.amountMinor, ask.currency)} is over mandate ${m.id}'s remaining ` +
        `${formatMoney(remaining, m.currency)} (maxSpend ${formatMoney(m.maxMinor, m.currency)})`,
      {
        amount: toMajor(ask.amountMinor, ask.currency),
        remaining: toMajor(remaining, m.currency),
      },
    );
  }
  if (m.resolveRules.length > 0) {
    const unmet = unmetResolveRules(m.resolveRules, evidence);
    if (unmet.length > 0)
      return refuse('resolveRuleUnmet', `Mandate ${m.id} requires ${unmet[0]!.rule}: ${unmet[0]!.message}`, {
        rule: unmet[0]!.rule,
        unmet,
      });
  }
  return null;
}

/** Nothing chosen, nothing audited, nothing confirmed: every resolve rule fails against it. */
export const NO_EVIDENCE: PurchaseEvidence = { candidate: null, flaggedHiddenFees: [], availability: null };

/**
 * The purchase evidence in a run's step outputs (by domain): hunt's selection, resolve's fee audit, any confirmed
 * availability.
 */
export function evidenceFromOutputs(
  outputs: Record<string, Record<string, unknown> | undefined>,
  listing: { feesMinor: number; text: string } | null,
): PurchaseEvidence {
  const selected = outputs.hunt?.selected as { itemId?: unknown; title?: unknown } | undefined;
  const candidate =
    selected && typeof selected.itemId === 'string'
      ? {
          itemId: selected.itemId,
          title: typeof selected.title === 'string' ? selected.title : selected.itemId,
          feesMinor: listing?.feesMinor ?? null,
          text: listing?.text ?? '',
        }
      : null;
  const hiddenFees = outputs.resolve?.hiddenFees;
  let availability: PurchaseEvidence['availability'] = null;
  for (const [domain, output] of Object.entries(outputs)) {
    const found = (output?.availability ??
      (output?.verifiedProvider as { availability?: unknown } | undefined)?.availability) as
      { status?: unknown } | undefined;
    if (found && typeof found.status === 'string')
      availability = { status: found.status, source: `the ${domain} step` };
  }
  return {
    candidate,
    flaggedHiddenFees: Array.isArray(hiddenFees) ? hiddenFees.filter((x): x is string => typeof x === 'string') : [],
    availability,
  };
}

/** What a run pays for: the chosen candidate (or the run's metadata.payment), at its net price. */
export interface Purchase {
  itemId: string | null;
  title: string;
  vendorId: string;
  amount: number;
  currency: string;
  povRef: string | null;
}

/**
 * The purchase a hunt selection stands for: the net price (fees included)
 * in USD when hunt could price it so, and the vendor (the item id when the
 * listing names none); its proof of value is the catalog record until the
 * caller finds the listing's URL.
 */
export function purchaseOfSelection(hunt: Record<string, unknown> | undefined): Purchase | null {
  const selected = hunt?.selected as
    | { itemId?: unknown; title?: unknown; price?: unknown; currency?: unknown; net?: unknown; vendor?: unknown }
    | undefined;
  if (!selected || typeof selected.itemId !== 'string' || typeof selected.price !== 'number') return null;
  const itemId = selected.itemId;
  // hunt's net: a decimal string in the offer's own currency (fees included), null when a fee was not priced.
  const n = selected.net as { amount?: unknown; currency?: unknown } | null | undefined;
  const net =
    n && typeof n.amount === 'string' && typeof n.currency === 'string' && Number.isFinite(Number(n.amount))
      ? { amount: Number(n.amount), currency: n.currency }
      : null;
  return {
    itemId,
    title: typeof selected.title === 'string' ? selected.title : itemId,
    vendorId: typeof selected.vendor === 'string' && selected.vendor.trim() ? selected.vendor : itemId,
    amount: net?.amount ?? selected.price,
    currency: net?.currency ?? (typeof selected.currency === 'string' ? selected.currency : 'USD'),
    povRef: `catalog:${itemId}`,
  };
}
