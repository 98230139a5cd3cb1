import { countryName } from './countries.js';
import {
  countryEvidence,
  documentTotal,
  itemAmounts,
  headings,
  signatureOf,
  subjectDates,
  normalizeName,
  subjectPeriods,
  vendorParties,
} from './policy-evidence.js';
import { parseRule } from './policy-parse.js';
import type { PolicyAudit, PolicyCheck, PolicyEvidence } from './policy-schemas.js';
import type { AmountOp, ParsedRule, RequiredItem } from './policy-types.js';

/**
 * Policy rules checked against documents: each rule is read as a check (policy-parse.ts), and each check is met,
 * broken or open with the spans that decide it. A rule that cannot be read, or that no span decides, stays open:
 * nothing is met by words merely appearing. Pure.
 */

export interface PolicySource {
  /** `document[i]` or `vendorName`. */
  source: string;
  text: string;
}

const SYMBOLS: Record<AmountOp, string> = { lte: '≤', lt: '<', gte: '≥', gt: '>' };
const holds = (op: AmountOp, a: number, b: number) =>
  op === 'lte' ? a <= b : op === 'lt' ? a < b : op === 'gte' ? a >= b : a > b;
const FIGURES = { minimumFractionDigits: 2, maximumFractionDigits: 2 };
const money = (value: number, currency: string | null) =>
  `${value.toLocaleString('en-US', FIGURES)}${currency ? ` ${currency}` : ''}`;
const ORDER = { breaks: 0, meets: 1, undecided: 2 } as const;

/** The check of a rule from the evidence it read: a breaking span breaks it, else a meeting one meets it. */
function judged(
  rule: string,
  kind: PolicyCheck['kind'],
  expected: string,
  evidence: PolicyEvidence[],
  whenOpen: string,
): PolicyCheck {
  const sorted = [...evidence].sort((a, b) => ORDER[a.verdict] - ORDER[b.verdict]);
  const first = sorted[0];
  const status = first?.verdict === 'breaks' ? 'broken' : first?.verdict === 'meets' ? 'met' : 'open';
  const detail =
    status === 'open'
      ? whenOpen
      : `${first!.source} ${status === 'broken' ? 'breaks' : 'meets'} it: "${first!.span.text}" (${first!.value})`;
  return { rule, kind, status, expected, detail, evidence: sorted };
}

function amountCheck(rule: string, r: Extract<ParsedRule, { kind: 'amountLimit' }>, docs: PolicySource[]) {
  const limit = `${SYMBOLS[r.op]} ${money(r.limit, r.currency)}`;
  // A rule that names a line ("freight charges") is judged on the lines labelled so, never on the total.
  const totals = docs.flatMap((d) => {
    if (r.item) return itemAmounts(d.text, r.item).map((a) => ({ ...a, source: d.source }));
    const t = documentTotal(d.text);
    return t ? [{ ...t, source: d.source }] : [];
  });
  const what = r.item ?? 'total';
  const comparable = (c: string | null) => !r.currency || c === r.currency;
  const sum = totals.filter((t) => comparable(t.currency)).reduce((s, t) => s + t.value, 0);
  const evidence = totals.map((t): PolicyEvidence => {
    const value = `${money(t.value, t.currency)} ${what}`;
    if (!comparable(t.currency))
      return { source: t.source, span: t.span, value: `${value}, not in ${r.currency}`, verdict: 'undecided' };
    const ok = holds(r.op, r.scope === 'sum' ? sum : t.value, r.limit);
    return { source: t.source, span: t.span, value, verdict: ok ? 'meets' : 'breaks' };
  });
  const expected = r.item
    ? `${r.scope === 'sum' ? "the documents' " : 'each '}${r.item} amount ${limit}`
    : r.scope === 'sum'
      ? `the documents' totals together ${limit}`
      : `each document's total ${limit}`;
  const open = totals.length
    ? `no ${what} is in ${r.currency} (amounts are not converted)`
    : r.item
      ? `no document states a ${r.item} amount (a line labelled so)`
      : 'no document states an amount';
  const check = judged(rule, 'amountLimit', expected, evidence, open);
  return r.scope === 'sum' && check.status !== 'open'
    ? { ...check, detail: `the totals add up to ${money(sum, r.currency)}; ${check.detail}` }
    : check;
}

function vendorCheck(
  rule: string,
  r: Extract<ParsedRule, { kind: 'allowedVendors' | 'excludedVendors' }>,
  sources: PolicySource[],
) {
  const listed = new Set(r.names.map(normalizeName));
  const allow = r.kind === 'allowedVendors';
  const parties = sources.flatMap((s) =>
    s.source === 'vendorName'
      ? [{ source: s.source, name: s.text, span: { text: s.text, start: 0, end: s.text.length } }]
      : vendorParties(s.text).map((p) => ({ ...p, source: s.source })),
  );
  // Only labelled parties count: a name merely appearing in a text is not who issued it.
  const evidence = parties.map((p): PolicyEvidence => ({
    source: p.source,
    span: p.span,
    value: `vendor ${p.name}`,
    verdict: listed.has(normalizeName(p.name)) === allow ? 'meets' : 'breaks',
  }));
  const expected = `the vendor is ${allow ? 'one' : 'none'} of: ${r.names.join(', ')}`;
  return judged(
    rule,
    r.kind,
    expected,
    evidence,
    'no document names its vendor or payee (as "Supplier:", "Payee:", "payable to")',
  );
}

function countryCheck(
  rule: string,
  r: Extract<ParsedRule, { kind: 'allowedCountries' | 'excludedCountries' }>,
  docs: PolicySource[],
) {
  const allow = r.kind === 'allowedCountries';
  const evidence = docs.flatMap((d) =>
    countryEvidence(d.text).map((c): PolicyEvidence => ({
      source: d.source,
      span: c.span,
      value: `${c.code} (${countryName(c.code)}, ${c.how})`,
      verdict: r.codes.includes(c.code) === allow ? 'meets' : 'breaks',
    })),
  );
  const names =
    r.codes.length > 6
      ? `${r.codes.length} countries (${r.codes.join(', ')})`
      : r.codes.map((c) => `${c} (${countryName(c)})`).join(', ');
  const expected = `the vendor's country is ${allow ? 'one' : 'none'} of: ${names}`;
  return judged(
    rule,
    r.kind,
    expected,
    evidence,
    'no document names a country of its vendor (by name, IBAN or phone number)',
  );
}

const DATE_WORDS = { onOrBefore: 'on or before', before: 'before', onOrAfter: 'on or after', after: 'after' };
function dateCheck(rule: string, r: Extract<ParsedRule, { kind: 'dateLimit' }>, docs: PolicySource[]) {
  const evidence = docs.flatMap((d) =>
    subjectDates(d.text, r.subject).map((x): PolicyEvidence => {
      if (!x.date)
        return { source: d.source, span: x.span, value: `${r.subject.name} date without a year`, verdict: 'undecided' };
      const ok =
        r.op === 'onOrBefore'
          ? x.date <= r.date
          : r.op === 'before'
            ? x.date < r.date
            : r.op === 'onOrAfter'
              ? x.date >= r.date
              : x.date > r.date;
      return {
        source: d.source,
        span: x.span,
        value: `${r.subject.name} date ${x.date}`,
        verdict: ok ? 'meets' : 'breaks',
      };
    }),
  );
  const expected = `the ${r.subject.name} date is ${DATE_WORDS[r.op]} ${r.date}`;
  return judged(rule, 'dateLimit', expected, evidence, `no document states a ${r.subject.name} date`);
}

function periodCheck(rule: string, r: Extract<ParsedRule, { kind: 'period' }>, docs: PolicySource[]) {
  const evidence = docs.flatMap((d) =>
    subjectPeriods(d.text, r.subject).map((p): PolicyEvidence => ({
      source: d.source,
      span: p.span,
      value: `${r.subject.name} in ${p.days} day(s)`,
      verdict: holds(r.op, p.days, r.days) ? 'meets' : 'breaks',
    })),
  );
  const expected = `${r.subject.name} within ${r.op === 'lte' ? 'at most' : 'at least'} ${r.days} day(s)`;
  return judged(
    rule,
    'period',
    expected,
    evidence,
    `no document states a ${r.subject.name} period or dates to count one`,
  );
}

/** How documents name what a rule requires; any other name is matched as written. */
const DOCUMENT_NAMES: Array<[RegExp, RegExp]> = [
  [/\bw-?9\b/i, /\b(?:form\s+)?W-?9\b/i],
  [/\bw-?8/i, /\bW-?8\s?BEN(?:-?E)?\b/i],
  [
    /insurance|\bcoi\b/i,
    /\b(?:certificate of (?:liability )?insurance|insurance certificate|proof of insurance|COI)\b/i,
  ],
  [/\bnda\b|non-?disclosure|confidentiality/i, /\b(?:NDA|non-?disclosure agreement|confidentiality agreement)\b/i],
  [/\bcontract\b|\bagreement\b|\bmsa\b/i, /\b(?:contract|agreement|MSA)\b/i],
  [/\biso\s?\/?\s?(?:iec\s?)?27001/i, /\bISO(?:\/IEC)?\s?27001\b/i],
  [/\bsoc\s?2\b/i, /\bSOC\s?2\b/i],
  [/\bpurchase order\b|\bpo\b/i, /\b(?:purchase order|P\.?O\.?)\b/],
];
function documentPattern(name: string): RegExp {
  const known = DOCUMENT_NAMES.find(([test]) => test.test(name));
  if (known) return known[1];
  const words = name.split(/[\s-]+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`\\b${words.join('[\\s-]+')}\\b`, 'i');
}

function documentCheck(rule: string, item: RequiredItem, docs: PolicySource[]): PolicyCheck {
  const pattern = documentPattern(item.name);
  const evidence: PolicyEvidence[] = [];
  const mentions: string[] = [];
  for (const d of docs) {
    const heading = headings(d.text).find((h) => pattern.test(h.text));
    if (!heading) {
      if (pattern.test(d.text)) mentions.push(d.source);
      continue;
    }
    const sig = item.signed ? signatureOf(d.text) : null;
    if (!sig)
      evidence.push({ source: d.source, span: heading, value: `${item.name} by its heading`, verdict: 'meets' });
    else if (sig.state === 'unknown')
      evidence.push({
        source: d.source,
        span: heading,
        value: `${item.name}, no signature shown`,
        verdict: 'undecided',
      });
    else
      evidence.push({
        source: d.source,
        span: sig.span!,
        value: `${item.name}, ${sig.state}`,
        verdict: sig.state === 'signed' ? 'meets' : 'breaks',
      });
  }
  const expected = `a document that is a ${item.signed ? 'signed ' : ''}${item.name}`;
  const open = evidence.length
    ? `the ${item.name} shows no signature`
    : `no document is a ${item.name}${mentions.length ? ` (${mentions.join(', ')} only mention it)` : ''}`;
  return judged(rule, 'requiredDocument', expected, evidence, open);
}

/** The checks of one rule against the sources (documents, and the vendor's name for vendor lists). */
export function checkRule(rule: string, sources: PolicySource[]): PolicyCheck[] {
  const r = parseRule(rule);
  const docs = sources.filter((s) => s.source !== 'vendorName');
  switch (r.kind) {
    case 'amountLimit':
      return [amountCheck(rule, r, docs)];
    case 'allowedVendors':
    case 'excludedVendors':
      return [vendorCheck(rule, r, sources)];
    case 'allowedCountries':
    case 'excludedCountries':
      return [countryCheck(rule, r, docs)];
    case 'dateLimit':
      return [dateCheck(rule, r, docs)];
    case 'period':
      return [periodCheck(rule, r, docs)];
    case 'requiredDocument':
      return r.items.map((item) => documentCheck(rule, item, docs));
    case 'unparsed':
      return [
        {
          rule,
          kind: 'unparsed',
          status: 'open',
          expected: null,
          detail: `not read as a check: ${r.reason}`,
          evidence: [],
        },
      ];
  }
}

/** Every rule checked against the documents (`document[i]`) and, for vendor lists, the vendor's name. */
export function auditPolicy(rules: string[], documents: string[], vendorName?: string): PolicyAudit {
  const sources: PolicySource[] = [
    ...documents.map((text, i) => ({ source: `document[${i}]`, text })),
    ...(vendorName ? [{ source: 'vendorName', text: vendorName }] : []),
  ];
  const checks = rules.flatMap((rule) => checkRule(rule, sources));
  const count = (s: PolicyCheck['status']) => checks.filter((c) => c.status === s).length;
  return {
    checked: rules.length,
    met: count('met'),
    broken: count('broken'),
    open: count('open'),
    unmet: [...new Set(checks.filter((c) => c.status !== 'met').map((c) => c.rule))],
    checks,
  };
}
