/**
 * The phrase rules of scam triage, each tagged with where it comes from: the
 * FTC's four signs of a scam (consumer.ftc.gov, "How To Avoid a Scam":
 * scammers PRETEND to be from an organization you know, say there is a
 * PROBLEM or a PRIZE, PRESSURE you to act immediately, tell you to PAY in a
 * specific way) and the FBI IC3's crime types (ic3.gov annual report:
 * Government Impersonation, Tech Support, Extortion, Investment, Advance Fee,
 * Overpayment, Business Email Compromise, Phishing/Spoofing, Lottery/Sweepstakes/Inheritance,
 * Real Estate, Confidence/Romance, Employment) and the FTC's pages on rental, romance, tech-support,
 * government-impersonation, job and fake-check scams.
 * Pure data and matching; docs/api/cases-and-triage.md ("Scam triage") lists every rule id and what triggers it.
 */
import type { PhraseRule, RuleDoc, RuleId } from './triage-rule-types.js';
import { LURE_RULES } from './triage-rules-lures.js';
import { PAYMENT_RULES } from './triage-rules-payment.js';
import { PRESSURE_RULES } from './triage-rules-pressure.js';
import { RENTAL_RULES } from './triage-rules-rental.js';
import { WORK_RULES } from './triage-rules-work.js';

export type { FtcSign, Ic3Category, RuleDoc, RuleId } from './triage-rule-types.js';

/** Phrase rules, in the order their signals are listed. Every pattern is matched case-insensitively, word-bounded. */
export const PHRASE_RULES: PhraseRule[] = [
  ...PAYMENT_RULES,
  ...PRESSURE_RULES,
  ...LURE_RULES,
  ...RENTAL_RULES,
  ...WORK_RULES,
];

/** Rules found by comparison rather than phrases; their documentation lives with the others. */
export const DERIVED_RULES: Record<
  Extract<RuleId, `lookalike.${string}` | `contradiction.${string}` | 'llm.signal'>,
  RuleDoc
> = {
  'lookalike.domain': {
    signal: 'a lookalike of a well-known domain',
    weight: 4,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'phishingSpoofing',
    trigger:
      "a registrable domain (tldts) that is not a listed brand's but reads as one after Unicode confusables " +
      'are folded, after ASCII tricks (rn→m, vv→w, 0→o, 1→l), within edit distance 1–2 of it, or with the ' +
      'brand as its own label ("paypal-secure.com")',
  },
  'contradiction.bankDetails': {
    signal: 'the documents give different bank details',
    weight: 4,
    ftcSign: 'payInSpecificWay',
    ic3: 'businessEmailCompromise',
    trigger: 'an IBAN or account number in the claim or a document that another document contradicts',
  },
  'contradiction.payee': {
    signal: 'the documents name different payees',
    weight: 2,
    ftcSign: 'payInSpecificWay',
    ic3: 'businessEmailCompromise',
    trigger: 'a labelled payee/beneficiary that differs between the claim and a document or between documents',
  },
  'contradiction.domain': {
    signal: 'the documents come from different domains',
    weight: 2,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'phishingSpoofing',
    trigger: "the sender's or a link's registrable domain differs from the one the documents use",
  },
  'llm.signal': {
    signal: 'signal added by the configured language model',
    weight: 1,
    ftcSign: null,
    ic3: null,
    trigger: 'the optional LLM quoted text it judged a scam sign; it only adds, never removes',
  },
};

/** Every rule's documentation by id. */
export const RULE_DOCS: Record<RuleId, RuleDoc> = {
  ...Object.fromEntries(PHRASE_RULES.map(({ id, patterns: _p, ...doc }) => [id, doc])),
  ...DERIVED_RULES,
} as Record<RuleId, RuleDoc>;

/** Words that, earlier in the same sentence, turn a hit into a disclaimer ("we will never ask for your PIN"). */
const NEGATION = /\b(?:never|not|don'?t|won'?t|no one|nobody|cannot|can'?t|neither)\b/i;
/**
 * Where a negation's reach ends: the sentence, a clause (comma, semicolon) or an alternative ("do not hang up or …").
 */
const SCOPE_BREAK = /[.!?\n,;]|\b(?:or|otherwise|but|if)\b/gi;

export interface PhraseHit {
  ruleId: RuleId;
  start: number;
  end: number;
  text: string;
}

/** Whether the hit at `start` sits in a sentence that negates it before it (checked within 60 characters). */
function negated(text: string, start: number): boolean {
  const before = text.slice(Math.max(0, start - 60), start);
  const cut = Math.max(-1, ...[...before.matchAll(SCOPE_BREAK)].map((m) => m.index + m[0].length - 1));
  return NEGATION.test(before.slice(cut + 1));
}

/** The first non-negated hit of each phrase rule in `text` (that also says the rule's context), with its offsets. */
export function phraseHits(text: string): PhraseHit[] {
  const hits: PhraseHit[] = [];
  for (const rule of PHRASE_RULES) {
    if (rule.context && !rule.context.test(text)) continue;
    for (const pattern of rule.patterns) {
      const re = new RegExp(pattern.source, 'gi');
      let found: PhraseHit | null = null;
      for (const m of text.matchAll(re)) {
        if (rule.negatable !== false && negated(text, m.index)) continue;
        found = { ruleId: rule.id, start: m.index, end: m.index + m[0].length, text: m[0] };
        break;
      }
      if (found) {
        hits.push(found);
        break;
      }
    }
  }
  return hits;
}
