// The tech-support, government-impersonation and job phrase rules of scam triage (FTC "Tech support scams",
// "Government impersonation scams", "Job scams"; IC3 Tech Support, Government Impersonation, Employment).
import type { PhraseRule } from './triage-rule-types.js';

/** Within a sentence; a full stop counts only inside a number ("$1,800.00"). */
const W = String.raw`(?:[^.!?\n]|\.\d)`;

/** The text names an authority, an officer or a court matter. */
const AUTHORITY = new RegExp(
  [
    String.raw`\b(?:irs|tax|hmrc|social security|ssa|fbi|police|officer|agent|marshals?|sheriff|court|judge|jury`,
    String.raw`|warrant`,
    String.raw`|government|federal|customs|immigration|uscis|medicare|dmv|e-?zpass|toll|department of|ministry`,
    String.raw`|embassy|consulate)\b`,
  ].join(''),
  'i',
);

/** The text is about a job, a recruiter or paid tasks. */
const JOB = new RegExp(
  [
    String.raw`\b(?:jobs?|position|role|hired|hiring|recruit(?:er|ment|ing)?|employer|employment|interview|onboarding`,
    String.raw`|work[- ]from[- ]home|remote (?:work|job|position)|part[- ]time|full[- ]time|salary|paycheck|freelance`,
    String.raw`|gig|tasks?|commission|hr|human resources|offer letter|job offer)\b`,
  ].join(''),
  'i',
);

const CALL = String.raw`(?:call|phone|dial|ring|contact)`;
const DEVICE = String.raw`(?:computer|pc|laptop|device|mac|macbook|router|ip address|windows|wi-?fi|system)`;

/** Tech-support, government and job rules, in the order their signals are listed. */
export const WORK_RULES: PhraseRule[] = [
  {
    // FTC: real security pop-ups never ask you to call a number.
    id: 'techSupport.callNumber',
    signal: 'a pop-up or alert says to call a support number',
    weight: 6,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'techSupport',
    trigger:
      'a pop-up, alert, warning or locked screen that says to call a number or support; "call the number on the ' +
      'screen"; "your computer is infected, call …"',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:pop-?ups?|alert|warning|message|screen|window|banner|notification)\b[^\n]{0,80}?\b${CALL}\b`,
          String.raw`${W}{0,40}?(?:\b(?:number|support|helpline|hotline|technician|microsoft|apple|windows`,
          String.raw`|toll[- ]free)\b`,
          String.raw`|\+?\d[\d\s().-]{6,}\d)`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b${CALL}\b${W}{0,40}?\b(?:number|support|helpline|hotline|technician)\b${W}{0,30}?\b(?:on|in`,
          String.raw`|shown (?:on|in)|from) (?:the|my|your|this) (?:screen|pop-?up|alert|warning|message|window`,
          String.raw`|browser)`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b${DEVICE}\b${W}{0,20}?\b(?:is|has been|was|got|are) (?:infected|hacked|compromised|locked`,
          String.raw`|blocked`,
          String.raw`|at risk)\b${W}{0,80}?\b${CALL}\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    // FTC: Microsoft, Apple and the like will not call you about a problem with your computer.
    id: 'techSupport.unsolicited',
    signal: 'an unexpected caller says your computer has a problem',
    weight: 6,
    ftcSign: 'problemOrPrize',
    ic3: 'techSupport',
    trigger:
      'someone called, rang or contacted you (or claims to be from a tech company) saying your computer, ' +
      'router or IP ' +
      'address is infected, hacked or sending errors',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:called|calling|calls|phoned|rang|rings|cold[- ]called|contacted (?:me|us)`,
          String.raw`|(?:phone )?call from`,
          String.raw`|claim(?:s|ed|ing)? to be|says? (?:he|she|they)(?:'s| is| are| was`,
          String.raw`| were) from)\b${W}{0,60}?\b${DEVICE}\b`,
          String.raw`${W}{0,30}?\b(?:infected|hacked|compromised|viruse?s?|malware|sending (?:out )?(?:errors|viruses)`,
          String.raw`|being used|has (?:a )?problems?|errors?)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'government.paymentDemand',
    signal: 'an authority demands a fine, toll, tax or bail be paid',
    weight: 3,
    ftcSign: 'pressureToActNow',
    ic3: 'governmentImpersonation',
    trigger:
      'pay or settle a fine, penalty, bond, bail, back taxes or toll; "to avoid arrest"; unpaid toll or fine; a ' +
      'warrant "unless you pay" (in a text naming an authority, officer or court)',
    context: AUTHORITY,
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:pay|settle|clear|resolve|post)\b${W}{0,50}?\b(?:fines?|penalt(?:y|ies)|bond|bail|back taxes`,
          String.raw`|tax (?:debt|bill|arrears)|tolls?|citations?|outstanding (?:balance|amount|debt|taxes))\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\bto avoid (?:(?:your |an? |the |being )?(?:arrest(?:ed)?|prosecution|deportation|jail|warrant`,
          String.raw`|legal action|suspension|penalt(?:y|ies)|late fees?|charges))\b`,
        ].join(''),
        'i',
      ),
      /\b(?:unpaid|outstanding|overdue) (?:tolls?|toll (?:balance|charges?)|fines?|tickets?|taxes|tax)\b/i,
      new RegExp(
        [
          String.raw`\b(?:warrant|arrest|charges|lawsuit)\b[^.!?\n]{0,50}?\b(?:unless|until|if you (?:don'?t`,
          String.raw`|do not))\b[^.!?\n]{0,30}?\bpay`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    // FTC: "Never pay for the promise of a job"; task scams make you deposit money to unlock paid tasks.
    id: 'job.payToWork',
    signal: 'a job that you must pay for',
    weight: 6,
    ftcSign: 'payInSpecificWay',
    ic3: 'employment',
    trigger:
      'pay or deposit for training, a starter kit, equipment (a laptop, supplies), a certification, a background ' +
      'check or an application fee; pay or top up to unlock tasks, orders or your earnings (in a text about a job)',
    context: JOB,
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:pay|buy|purchase|deposit|send|cover|top up)\b${W}{0,40}?\b(?:for )?(?:the |a |an |my |your `,
          String.raw`|their |own )*(?:training|starter kit|start-?up kit|equipment|software|certification|background `,
          String.raw`check|registration fee|application fee|onboarding fee|uniform|work permit|visa fee|processing fee`,
          // FTC: a "new employer" has you buy a laptop or supplies from its vendor, then reimburses with a fake check
          String.raw`|laptop|computer|work phone|office supplies|supplies`,
          String.raw`|materials)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:pay|deposit|top up|recharge|send)\b${W}{0,40}?\bto (?:unlock|start|activate|upgrade|continue`,
          String.raw`|complete|receive|release|withdraw)\b${W}{0,30}?\b(?:tasks?|orders?|account|level|job|work|salary`,
          String.raw`|commission|earnings|wages|pay)\b`,
        ].join(''),
        'i',
      ),
      /\b(?:tasks?|orders?)\b[^.!?\n]{0,40}?\b(?:negative balance|deposit (?:your|my) own|top (?:it )?up)\b/i,
    ],
  },
  {
    id: 'job.moneyMule',
    signal: 'a job moving money or parcels through your own account or address',
    weight: 6,
    ftcSign: 'payInSpecificWay',
    ic3: 'employment',
    trigger:
      'receive payments into your own account and forward, transfer or withdraw them; reship or forward parcels (in ' +
      'a text about a job)',
    context: JOB,
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:receive|accept|process|handle|collect)\b${W}{0,40}?\b(?:into|to|in|through|via) (?:your|my) `,
          String.raw`(?:own |personal |private )?(?:bank )?accounts?\b${W}{0,60}?\b(?:forward|transfer|send|wire`,
          String.raw`|withdraw|convert|buy)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:re-?ship(?:ping)?|repackag\w*|forward(?:ing)? (?:the )?(?:packages|parcels)`,
          String.raw`|package (?:handler|forwarder))\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'job.unusualOffer',
    signal: 'a job offer without an interview, or pay for liking or rating',
    weight: 3,
    ftcSign: 'problemOrPrize',
    ic3: 'employment',
    trigger:
      'hired without an interview; an interview by chat (Telegram, WhatsApp, text); earn N a day from home, for ' +
      'liking, rating or reviewing products, videos or apps',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:hired|offered (?:me |you )?(?:the |a )?(?:job|position)`,
          String.raw`|job offer)\b[^.!?\n]{0,40}?\bwithout (?:an? |any )?(?:interview|meeting|call)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\binterview(?:ed|s)?\b${W}{0,30}?\b(?:over|on|via|through|by) (?:telegram|whatsapp|signal|text`,
          String.raw`|chat|google chat|hangouts|instant messag\w*)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:earn|make|get paid)\b${W}{0,20}?(?:[$€£]\s?)?\d[\d,.]*\s?(?:[$€£]|usd|eur|gbp|dollars`,
          String.raw`|euros)?`,
          String.raw`\s?(?:a|per|/|each)\s?(?:day|hour|week)\b${W}{0,60}?\b(?:from home|no experience|part[- ]time`,
          String.raw`|just`,
          String.raw`|simply|liking|rating|reviewing|clicking|online)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:lik(?:e|ing)|rat(?:e|ing)|review(?:ing)?|optimi[sz](?:e|ing)|boost(?:ing)?)\b${W}{0,20}?`,
          String.raw`\b(?:videos|products|apps|hotels|posts|movies)\b${W}{0,40}?\b(?:earn|commission|paid|salary`,
          String.raw`|income)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
];
