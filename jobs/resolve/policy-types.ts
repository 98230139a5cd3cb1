// The policy rules a buyer writes, as read by policy-parse.ts and checked by policy-audit.ts.

/** What a date or a period is about, with the words a document labels it with ("Delivery date:", "Payable within"). */
export interface Subject {
  name: string;
  pattern: RegExp;
}

export interface RequiredItem {
  /** The document as the rule names it, without articles and qualifiers ("W-9", "certificate of insurance"). */
  name: string;
  /** The rule wants it signed ("a signed contract"). */
  signed: boolean;
}

export type AmountOp = 'lte' | 'lt' | 'gte' | 'gt';
export type DateOp = 'onOrBefore' | 'before' | 'onOrAfter' | 'after';

export type ParsedRule =
  | {
      kind: 'amountLimit';
      op: AmountOp;
      limit: number;
      currency: string | null;
      scope: 'each' | 'sum';
      /** The line the rule limits ("freight" of "Freight charges must…"); absent: the document's total. */
      item?: string;
    }
  | { kind: 'allowedVendors' | 'excludedVendors'; names: string[] }
  | { kind: 'allowedCountries' | 'excludedCountries'; codes: string[] }
  | { kind: 'dateLimit'; subject: Subject; op: DateOp; date: string }
  | { kind: 'period'; subject: Subject; op: 'lte' | 'gte'; days: number }
  | { kind: 'requiredDocument'; items: RequiredItem[] }
  | { kind: 'unparsed'; reason: string };
