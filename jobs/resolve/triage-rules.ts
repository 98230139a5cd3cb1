import type { FTC_SIGNS, IC3_CATEGORIES, RULE_IDS } from './schemas.js';

/**
 * The phrase rules of scam triage, each tagged with where it comes from: the
 * FTC's four signs of a scam (consumer.ftc.gov, "How To Avoid a Scam":
 * scammers PRETEND to be from an organization you know, say there is a
 * PROBLEM or a PRIZE, PRESSURE you to act immediately, tell you to PAY in a
 * specific way) and the FBI IC3's crime types (ic3.gov annual report:
 * Government Impersonation, Tech Support, Extortion, Investment, Advance Fee,
 * Overpayment, Business Email Compromise, Phishing/Spoofing, Lottery/Sweepstakes/Inheritance).
 * Pure data and matching; docs/api/cases-and-triage.md ("Scam triage") lists every rule id and what triggers it.
 */

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

interface PhraseRule extends RuleDoc {
  id: RuleId;
  patterns: RegExp[];
}

const GIFT = String.raw`(?:gift|itunes|apple|google play|steam|amazon|prepaid|vanilla|razer gold)\s?cards?`;

/** Phrase rules, in the order their signals are listed. Every pattern is matched case-insensitively, word-bounded. */
export const PHRASE_RULES: PhraseRule[] = [
  {
    id: 'pay.giftCard',
    signal: 'asks for payment in gift cards',
    weight: 4,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger: 'buy/pay with/send gift cards (iTunes, Google Play, Steam, Amazon, prepaid), or the card codes',
    patterns: [
      new RegExp(
        String.raw`\b(?:buy|purchase|pay(?:ment)?|send|get|pick up|in|with|using|by)\b[^.!?\n]{0,40}?\b${GIFT}\b`,
        'i',
      ),
      new RegExp(String.raw`\b${GIFT}\s+(?:codes?|numbers?|pins?)\b`, 'i'),
    ],
  },
  {
    id: 'pay.wireService',
    signal: 'asks for payment through a money transfer service',
    weight: 3,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger: 'Western Union, MoneyGram, Ria Money Transfer',
    patterns: [/\b(?:western union|moneygram|ria money transfer)\b/i],
  },
  {
    id: 'pay.wire',
    signal: 'asks for payment by wire',
    weight: 2,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger:
      'wire transfer, "wire the money", "wire back", "send a wire" (alone it stays low: businesses invoice ' +
      'by wire too)',
    patterns: [/\b(?:wire transfer|wire (?:the|this|that|it|us|me|them|back)\b|send (?:a|the) wire)/i],
  },
  {
    id: 'pay.crypto',
    signal: 'asks for payment in cryptocurrency',
    weight: 3,
    ftcSign: 'payInSpecificWay',
    ic3: 'investment',
    trigger: 'bitcoin, crypto, USDT/Tether, a bitcoin ATM, a wallet address to pay to',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:pay|send|deposit|transfer|in|via|using|buy)\b(?:[^.!?\n]`,
          String.raw`|\.\d){0,40}?\b(?:bitcoin|btc|crypto(?:currency)?|usdt|tether|ethereum|eth)\b`,
        ].join(''),
        'i',
      ),
      /\b(?:bitcoin|crypto) (?:atm|kiosk|wallet)\b/i,
    ],
  },
  {
    id: 'pay.paymentApp',
    signal: 'asks for payment through a payment app',
    weight: 2,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger: 'Zelle, Venmo, Cash App, PayPal "friends and family"',
    patterns: [/\b(?:zelle|venmo|cash ?app)\b/i, /\bfriends (?:and|&) family\b/i],
  },
  {
    id: 'fee.advance',
    signal: 'a fee must be paid up front to receive money or goods',
    weight: 3,
    ftcSign: 'problemOrPrize',
    ic3: 'advanceFee',
    trigger: 'processing/release/clearance/transfer/customs fee to release or claim something; "pay a small fee"',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:processing|release|clearance|transfer|handling|activation|unlock(?:ing)?`,
          String.raw`|customs|delivery) (?:fee|charge|tax)\b[^.!?\n]{0,60}\b(?:release|receive`,
          String.raw`|claim|unlock|deliver|collect|process)`,
        ].join(''),
        'i',
      ),
      /\b(?:release|receive|claim|unlock|collect)\b[^.!?\n]{0,60}\b(?:pay|send)\b[^.!?\n]{0,30}\b(?:fee|charge|tax)\b/i,
      /\bpay (?:a|the) small (?:fee|charge)\b/i,
    ],
  },
  {
    id: 'fee.overpayment',
    signal: 'overpayment with a request to send the difference back',
    weight: 4,
    ftcSign: 'payInSpecificWay',
    ic3: 'overpayment',
    trigger: 'overpaid / sent too much, refund or send back the difference or excess',
    patterns: [
      /\b(?:overpa(?:id|yment)|sent (?:you )?too much|paid (?:you )?too much)\b/i,
      /\b(?:refund|send back|return|wire back)\b[^.!?\n]{0,30}\b(?:the )?(?:difference|excess|extra|balance)\b/i,
    ],
  },
  {
    id: 'pressure.deadline',
    signal: 'pressure to act now (a deadline of hours)',
    weight: 2,
    ftcSign: 'pressureToActNow',
    ic3: null,
    trigger: 'today, tonight, immediately, right now, act now, within N hours/minutes, final notice, last warning',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:today|tonight|immediately|right (?:now|away)|act now|at once|asap`,
          String.raw`|within (?:the next )?(?:\d{1,2}|one|two|twenty[- ]four`,
          String.raw`|forty[- ]eight) (?:hours?|hrs?|minutes?|mins?)|final (?:notice|warning)`,
          String.raw`|last (?:warning|chance)|expires? in \d+ (?:hours?|minutes?))\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'secrecy.request',
    signal: 'asks to keep it secret',
    weight: 3,
    ftcSign: 'pressureToActNow',
    ic3: 'businessEmailCompromise',
    trigger: 'do not tell/discuss, keep this confidential/between us, do not contact the bank, stay on the line',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:don'?t|do not|never) (?:tell|inform|discuss|mention|talk to|contact`,
          String.raw`|call)\b[^.!?\n]{0,40}\b(?:anyone|anybody|family|bank|police|colleagues?`,
          String.raw`|manager|staff|teller)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:keep (?:this|it) (?:confidential|secret|between us|private)`,
          String.raw`|strictly confidential|between (?:you and me|us)|stay on the line|(?:don'?t`,
          String.raw`|do not) hang up)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'threat.arrest',
    signal: 'threatens arrest, legal action or deportation',
    weight: 3,
    ftcSign: 'problemOrPrize',
    ic3: 'extortion',
    trigger: 'arrest, arrested, warrant, jail, prison, deportation, lawsuit, legal action, police at your door',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:arrest(?:ed)?|warrant|jail|prison|deport(?:ed|ation)?|lawsuit`,
          String.raw`|legal action|criminal (?:charges|case)|police (?:will|are))\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'threat.accountClosure',
    signal: 'threatens account closure, suspension or disconnection',
    weight: 2,
    ftcSign: 'problemOrPrize',
    ic3: 'phishingSpoofing',
    trigger: 'account/card/service will be suspended, closed, locked, blocked, frozen, disconnected, terminated',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:account|card|number|service|access|mailbox|subscription|power`,
          String.raw`|electricity)\b[^.!?\n]{0,30}\b(?:will be|has been|is`,
          String.raw`|be) (?:permanently )?(?:suspended|closed|locked|blocked|frozen|disconnected`,
          String.raw`|terminated|deactivated|cut off)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'impersonation.agency',
    signal: 'claims to be a government agency',
    weight: 2,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'governmentImpersonation',
    trigger: 'IRS, tax office, HMRC, Social Security, FBI, police department, customs, immigration, court, Medicare',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:irs|internal revenue service|tax (?:office|authority|department)|hmrc`,
          String.raw`|social security|ssa|fbi|dea|police department|customs (?:office|department`,
          String.raw`|and border)|immigration (?:office|service)|uscis|federal court|medicare`,
          String.raw`|department of justice)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'impersonation.bank',
    signal: 'claims to be a bank or its fraud department',
    weight: 1,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'phishingSpoofing',
    trigger:
      'your bank, fraud department/team, security department, named banks (Chase, Wells Fargo, Bank of ' +
      'America, Citibank, HSBC, Barclays)',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:your bank|fraud (?:department|team|prevention)|security (?:department`,
          String.raw`|team) of|chase|wells fargo|bank of america|citibank|hsbc|barclays`,
          String.raw`|santander)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'impersonation.brand',
    signal: 'claims to be a well-known brand or its support',
    weight: 1,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'techSupport',
    trigger: 'Microsoft/Apple/Amazon/PayPal/Netflix/Google support, "technical support", "customer support team"',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:microsoft|apple|amazon|paypal|netflix|google|geek squad|norton`,
          String.raw`|mcafee)\b[^.!?\n]{0,20}\b(?:support|security|team|department|billing)\b`,
        ].join(''),
        'i',
      ),
      /\btech(?:nical)? support\b/i,
    ],
  },
  {
    id: 'bankDetails.changed',
    signal: 'says the bank details have changed',
    weight: 4,
    ftcSign: 'payInSpecificWay',
    ic3: 'businessEmailCompromise',
    trigger: 'new/updated/changed bank details, account or IBAN; "pay to our new account"',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:new|updated|changed`,
          String.raw`|different)\b[^.!?\n]{0,20}\b(?:bank(?:ing)? (?:details|account|information`,
          String.raw`|info)|account (?:details|number)|iban|payment details|remittance details)\b`,
        ].join(''),
        'i',
      ),
      /\b(?:bank(?:ing)? details|account|iban)\b[^.!?\n]{0,20}\b(?:has|have) (?:been )?(?:changed|updated)\b/i,
    ],
  },
  {
    id: 'tooGood.returns',
    signal: 'promises returns too good to be true',
    weight: 4,
    ftcSign: 'problemOrPrize',
    ic3: 'investment',
    trigger: 'guaranteed returns/profit, double your money, risk-free, N % daily/weekly/monthly return',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:guaranteed (?:returns?|profits?|income)|double your (?:money|investment)`,
          String.raw`|risk[- ]free (?:returns?|investment|profit)|no risk)\b`,
        ].join(''),
        'i',
      ),
      /\b\d{1,3}\s?% (?:daily|weekly|monthly|per (?:day|week|month))\b/i,
      /\b(?:daily|weekly|monthly) (?:returns?|profits?) of \d{1,3}\s?%/i,
    ],
  },
  {
    id: 'tooGood.prize',
    signal: 'an unexpected prize, lottery win or inheritance',
    weight: 3,
    ftcSign: 'problemOrPrize',
    ic3: 'lotterySweepstakesInheritance',
    trigger: 'you have won, lottery, sweepstakes, jackpot, inheritance, unclaimed funds, beneficiary of',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:you(?:'ve| have)? (?:won|been selected)|lottery|sweepstakes?|jackpot`,
          String.raw`|inheritance|unclaimed (?:funds|prize|money)|next of kin)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'tooGood.price',
    signal: 'a price too good to be true',
    weight: 2,
    ftcSign: 'problemOrPrize',
    ic3: 'nonPaymentNonDelivery',
    trigger: '80–99 % off, brand-new at a fraction of the price, free iPhone',
    patterns: [
      /\b(?:[89]\d)\s?% off\b/i,
      /\bfree (?:iphone|ipad|macbook|laptop|car)\b/i,
      /\ba fraction of the (?:retail )?price\b/i,
    ],
  },
  {
    id: 'credentials.request',
    signal: 'asks for a password, code or other credential',
    weight: 4,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'phishingSpoofing',
    trigger:
      'give/send/confirm/read out your password, PIN, one-time or verification code, seed phrase, SSN, card number',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:send|give|tell|share|confirm|provide|read (?:out|back|me)|enter|verify`,
          String.raw`|reply with)\b[^.!?\n]{0,30}\b(?:password|passcode|pin|one[- ]time (?:code`,
          String.raw`|password)|otp|verification code|security code|6[- ]digit code|seed phrase`,
          String.raw`|recovery phrase|social security number|ssn|card number|cvv|login details)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'remoteAccess.request',
    signal: 'asks to install remote-access software',
    weight: 3,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'techSupport',
    trigger: 'AnyDesk, TeamViewer, UltraViewer, "remote access", "let me connect to your computer"',
    patterns: [/\b(?:anydesk|teamviewer|ultraviewer|quick ?support|remote (?:access|desktop|control))\b/i],
  },
  {
    id: 'link.verify',
    signal: 'asks to verify an account through a link',
    weight: 2,
    ftcSign: 'problemOrPrize',
    ic3: 'phishingSpoofing',
    trigger: 'click the link to verify/confirm/restore/unlock, log in here, verify your account/identity',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:click|tap|follow|open|visit)\b[^.!?\n]{0,30}\b(?:link|here|below`,
          String.raw`|button)\b[^.!?\n]{0,40}\b(?:verify|confirm|restore|unlock|reactivate|update`,
          String.raw`|avoid)\b`,
        ].join(''),
        'i',
      ),
      /\b(?:verify|confirm|validate) your (?:account|identity|details|information)\b/i,
      /\blog ?in here\b/i,
    ],
  },
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
function negated(text: string, start: number, ruleId: RuleId): boolean {
  if (ruleId === 'secrecy.request') return false; // "do not tell anyone" is the signal itself
  const before = text.slice(Math.max(0, start - 60), start);
  const cut = Math.max(-1, ...[...before.matchAll(SCOPE_BREAK)].map((m) => m.index + m[0].length - 1));
  return NEGATION.test(before.slice(cut + 1));
}

/** The first non-negated hit of each phrase rule in `text`, with its offsets. */
export function phraseHits(text: string): PhraseHit[] {
  const hits: PhraseHit[] = [];
  for (const rule of PHRASE_RULES) {
    for (const pattern of rule.patterns) {
      const re = new RegExp(pattern.source, 'gi');
      let found: PhraseHit | null = null;
      for (const m of text.matchAll(re)) {
        if (negated(text, m.index, rule.id)) continue;
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
