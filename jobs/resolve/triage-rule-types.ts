// The types of the scam-triage rules: FTC sign, IC3 category, rule id, a rule's documentation and a phrase rule.
import type { FTC_SIGNS, IC3_CATEGORIES, RULE_IDS } from './schemas.js';

export type FtcSign = (typeof FTC_SIGNS)[number];
export type Ic3Category = (typeof IC3_CATEGORIES)[number];
export type RuleId = (typeof RULE_IDS)[number];

export interface RuleDoc {
  signal: string;
  weight: number;
  ftcSign: FtcSign | null;
  ic3: Ic3Category | null;
  /** What triggers it, for the docs table and the rule catalogue. */
  trigger: string;
}

export interface PhraseRule extends RuleDoc {
  id: RuleId;
  patterns: RegExp[];
  /**
   * What the same text must also say somewhere for a hit to count: "keys by post" is a rental scam sign only in a
   * text about a rental, "send money" a romance one only about someone met online.
   */
  context?: RegExp;
  /** False when a negation before the hit is part of the signal ("do not tell anyone"); default true. */
  negatable?: boolean;
}
