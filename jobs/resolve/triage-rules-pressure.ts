// The pressure and impersonation phrase rules of scam triage: deadlines, secrecy, threats, pretended senders.
import type { PhraseRule } from './triage-rule-types.js';

/** Pressure, threat and impersonation rules, in the order their signals are listed. */
export const PRESSURE_RULES: PhraseRule[] = [
  {
    id: 'pressure.deadline',
    signal: 'pressure to act now (a deadline of hours)',
    weight: 2,
    ftcSign: 'pressureToActNow',
    ic3: null,
    trigger:
      'today, tonight, immediately, right now, act now, pay now, within N hours/minutes, final notice, last warning',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:today|tonight|immediately|right (?:now|away)|act now|pay now|at once|asap`,
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
    negatable: false, // "do not tell anyone" is the signal itself
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
    trigger:
      'IRS, tax office, HMRC, Social Security, FBI, police department, customs, immigration, court, Medicare, ' +
      'US Marshals, sheriff, jury duty, DMV, E-ZPass, toll services, USPS, Interpol',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:irs|internal revenue service|tax (?:office|authority|department)|hmrc`,
          String.raw`|social security|ssa|fbi|dea|police department|customs (?:office|department`,
          String.raw`|and border)|immigration (?:office|service)|uscis|federal court|medicare`,
          String.raw`|department of justice|u\.?s\.? marshals?|marshals? service|sheriff'?s? (?:office|department)`,
          String.raw`|jury duty|dmv|department of motor vehicles|e-?zpass|border patrol|homeland security|interpol`,
          String.raw`|europol|national crime agency|federal trade commission|revenue (?:service|agency)|usps`,
          String.raw`|postal service`,
          String.raw`|toll (?:services?|authority|agency))\b`,
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
];
