/**
 * The router's pure planning: how a request splits into the things it asks
 * for, what each part is (a request, a question, or context), and the order
 * the chosen domains run in. route.ts adds the classifier; nothing here reads
 * a module or does I/O.
 */

/** How a part is joined to the one before it. */
export type Link = 'start' | 'sentence' | 'sequence' | 'condition' | 'prerequisite';
/** A request of its own, a question, or context ("My landlord wants …") that belongs to the request beside it. */
export type Kind = 'ask' | 'question' | 'statement';

export interface Segment {
  /** The text as written, for the domain's step. */
  text: string;
  /** Without the joining words ("then", "if so,", "please"), for classification and the keyword rules. */
  core: string;
  link: Link;
  kind: Kind;
}

const ACTION_VERBS = [
  'pay',
  'buy',
  'purchase',
  'order',
  'call',
  'phone',
  'ring',
  'dial',
  'contact',
  'ask',
  'verify',
  'audit',
  'check',
  'double-check',
  'make sure',
  'book',
  'settle',
  'deploy',
  'ship',
  'deliver',
  'push',
  'scan',
  'plan',
  'set up',
  'connect',
  'link',
  'transfer',
  'donate',
  'cancel',
  'dispute',
  'triage',
  'respond',
  'write up',
  'validate',
  'tell me',
].join('|');

/**
 * Joins between parts, with what each means: a new sentence; "then"-like
 * sequencing, or "and"/"," before an action verb; "but first …" and "… once
 * you have …", which put their part before the one they follow.
 */
const JOINS = [
  String.raw`(?<=[.?!])\s+(?=\S)`,
  String.raw`\s*;\s*`,
  String.raw`\s*,?\s*\b(?:and then|then|after that|afterwards|and finally|finally|and also)\b\s*`,
  String.raw`\s*,?\s+but\s+(?:first\s+)?`,
  // not "call me once you have found …", a wish to be told (NOTIFY_ME)
  String.raw`(?<!\bme|\bme know)\s*,?\s+(?:once (?=you|it's|it is|that's|everything)` +
    String.raw`|after (?=you|checking|verifying|confirming|making sure))`,
  String.raw`\s*(?:,|:|\s+and)\s+(?=(?:${ACTION_VERBS})\b)`,
];
const JOIN = new RegExp(JOINS.map((p) => `(${p})`).join('|'), 'i');

const CONDITION = /^(if|when|unless)\b[^,]*,\s*|,?\s*\bif (so|it is|it's|they are|legit\w*|ok|fine|yes)\b[.!]?$/i;
const ONLY_CONDITION = /^(if|unless)\b[^,]*,?$/i;
const LEAD = /^(?:and|also|so|then|please|now|next|ok(?:ay)?|first(?: of all)?|finally),?\s+/i;
const FIRST = /\b(first|beforehand)\s*[.!]?$/i;
/** "call me when you find a cheaper flight": being told of the result is not a mission; the request is what follows. */
const NOTIFY_ME = new RegExp(
  String.raw`^(?:call|text|ring|phone|email|ping|message|notify|alert|tell|let) me(?: know)?,? ` +
    String.raw`(?:when|once|if|as soon as|whenever)\s+(?:you(?:'ve| have)?\s+)?`,
  'i',
);

function linkOf(join: string, next: string): Link {
  const j = join.trim().toLowerCase();
  if (/^,?\s*(once|after)$/.test(j)) return 'prerequisite';
  if (/\bbut\b/.test(j)) return /\bfirst\b/.test(j) || FIRST.test(next) ? 'prerequisite' : 'sequence';
  if (/^[.?!;]?$/.test(j)) return 'sentence';
  return 'sequence';
}

const startsWith = (words: string) => new RegExp(String.raw`^(${words.trim().split(/\s+/).join('|')})\b`, 'i');
const STATEMENT_START = startsWith(`i we my our your his her their the this that these those it it's its there there's
  he she they someone somebody a an i'm we're i've we've i'd`);
const DESIRE = /^(i|we)(?:'d| would)? (?:really )?(?:need|want|would like|'d like|like|wanna|have to|must)\b/i;
const QUESTION_START = startsWith(`is are was were do does did can could should will would has have how what what's
  why which who where when whether`);
const REQUEST_QUESTION = /^(can|could|would|will) (you|someone|somebody|a human|an agent)\b/i;

export function kindOf(core: string): Kind {
  const t = core.trim();
  if (REQUEST_QUESTION.test(t)) return 'ask';
  if (/\?\s*$/.test(t) || QUESTION_START.test(t)) return 'question';
  if (STATEMENT_START.test(t) && !DESIRE.test(t)) return 'statement';
  return 'ask';
}

/** "before paying the roofer, double-check his invoice": the main clause runs first. */
const LEADING_BEFORE = /^before\s+([^,]+),\s*(.+)$/i;

/** The parts of a request in the order the user wants them done, each with its join and kind. */
export function splitRequest(request: string): Segment[] {
  const pieces = request.trim().split(JOIN);
  const out: Segment[] = [];
  let join = '';
  // "If so, pay for it": a condition split off its request goes with it
  let condition = '';
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (piece === undefined) continue;
    // split() puts each capture group (one per alternative of JOIN) between the parts: the one that matched is the join
    if (i % (JOINS.length + 1) !== 0) {
      if (piece && !condition) join = piece;
      continue;
    }
    if (!piece.trim()) continue;
    if (ONLY_CONDITION.test(piece.trim()) && i + 1 < pieces.length) {
      condition += `${piece.trim().replace(/,$/, '')}, `;
      continue;
    }
    const text = `${condition}${piece.trim()}`;
    condition = '';
    const before = out.length === 0 ? LEADING_BEFORE.exec(text) : null;
    if (before) {
      out.push(segment(before[2]!, 'start'), segment(before[1]!, 'sequence'));
    } else {
      out.push(segment(text, out.length === 0 ? 'start' : linkOf(join, text)));
    }
    join = '';
  }
  // "before paying the roofer, double-check his invoice": the check runs first
  for (let i = 0; i + 1 < out.length; i++) {
    const [a, b] = [out[i]!, out[i + 1]!];
    if (/^before\b/i.test(a.core) && b.link === 'sequence') {
      out[i] = { ...b, link: a.link };
      out[i + 1] = { ...a, core: a.core.replace(/^before\s+/i, ''), link: 'sequence' };
    }
  }
  return out;
}

function segment(text: string, link: Link): Segment {
  let core = text.trim();
  const conditional = CONDITION.test(core);
  core = core.replace(CONDITION, '').replace(LEAD, '').replace(NOTIFY_ME, '').trim() || core;
  return { text: text.trim(), core, link: conditional && link !== 'start' ? 'condition' : link, kind: kindOf(core) };
}

/**
 * Asking whether something or someone is legitimate (a scam, genuine, safe to
 * pay, trustworthy) is a check of that counterparty: resolve, whatever else
 * the sentence mentions.
 */
const LEGITIMACY = new RegExp(
  [
    String.raw`\b(legit\w*|scam\w*|fraud\w*|genuine|fake|phishing|trust(worthy)?|too good to be true|red flags?`,
    String.raw`|fishy|sketchy|dodgy|shady`,
    String.raw`|real or (not|fake)|(is|are|was|were)\b[^.?!]{0,40}\breal)\b`,
    String.raw`|\bsafe to (pay|send|transfer|wire|buy|click|trust|give)\b`,
    // asking leave to meet a demand: "Should I send them?", "is that normal?", "can I trust her?"
    String.raw`|\bshould (i|we) (really )?(pay|send|transfer|wire|give|buy|do (it|that|this)|trust|believe|go ahead)\b`,
    // only as the question itself: "is it safe to add an index" is a migration's, "is that normal?" a check
    String.raw`|\b(is|was) (this|that|it) (normal|usual|ok|okay|true|real)\s*(\?|$)`,
    String.raw`|\bcan (i|we) (trust|believe)\b`,
  ].join(''),
  'i',
);

export function asksLegitimacy(text: string): boolean {
  return LEGITIMACY.test(text);
}

/** A part routed to a domain, in the order the user asked for them. */
export interface PlannedPart {
  domain: string;
  /** The part with its context, for the domain's step. */
  text: string;
  /** The request itself, without context or joining words. */
  core: string;
  link: Link;
  kind: Kind;
  /** The part asks whether something is legitimate. */
  legitimacy: boolean;
  why: string;
}

/** "buy a road bike": something must be found before it can be paid for. */
const BUY_SOMETHING = /\b(buy|purchase|order)\s+(me\s+)?(a|an|some|the cheapest|the best|new|used|\d+)\b/i;
const BUY_FIRST = new RegExp(`^${BUY_SOMETHING.source.slice(2)}`, 'i');

export interface Plan {
  route: string[];
  parts: Record<string, string>;
  why: string[];
}

/**
 * The ordered route of a request's parts. Rules, in order:
 * 1. When the request asks whether something is legitimate, pay runs only for
 *    a part that asks to pay (not for a question, nor a demand quoted in a
 *    later sentence: "Is this a scam? Pay 300 USD in gift cards …", nor one
 *    that continues a statement: "she wants me to sign and pay 150 dollars").
 * 2. A part joined with "but first" / "once you have …" runs before the one it follows.
 * 3. "buy a …" needs something found first, and asks to pay for it: hunt, then pay.
 * 4. A check of the counterparty runs before any payment: resolve before pay.
 * 5. Consecutive parts of one domain are one step.
 */
export function planRoute(parts: PlannedPart[]): Plan {
  const why: string[] = [];
  const legit = parts.some((p) => p.legitimacy);
  const kept = parts.filter((p) => {
    const drop = legit && p.domain === 'pay' && (p.kind !== 'ask' || p.link === 'sentence');
    if (drop) why.push(`"${clip(p.text)}" is not a request to pay in a legitimacy question → no pay`);
    return !drop;
  });
  const ordered: PlannedPart[] = [];
  for (const p of kept) {
    if (p.link === 'prerequisite' && ordered.length > 0) ordered.splice(ordered.length - 1, 0, p);
    else ordered.push(p);
  }
  const steps: Array<{ domain: string; text: string }> = [];
  for (const p of ordered) {
    const buys =
      p.kind === 'ask' &&
      ((p.domain === 'pay' && BUY_SOMETHING.test(p.core)) || (p.domain === 'hunt' && BUY_FIRST.test(p.core)));
    if (buys && !steps.some((s) => s.domain === 'hunt')) {
      steps.push({ domain: 'hunt', text: p.text });
      why.push(`"${clip(p.text)}" names something to buy → hunt first`);
    }
    const domain = buys ? 'pay' : p.domain;
    steps.push({ domain, text: p.text });
    why.push(`"${clip(p.text)}" → ${domain} (${buys && p.domain !== domain ? 'asks to buy' : p.why})`);
  }
  const checked = checkBeforePay(steps, (s) => s.domain);
  if (checked.some((s, i) => s !== steps[i]))
    why.push('the check of the counterparty (resolve) runs before the payment');
  const route: string[] = [];
  const texts: Record<string, string> = {};
  for (const s of checked) {
    if (route[route.length - 1] !== s.domain) route.push(s.domain);
    texts[s.domain] = texts[s.domain] && texts[s.domain] !== s.text ? `${texts[s.domain]}, ${s.text}` : s.text;
  }
  return { route, parts: texts, why };
}

const clip = (text: string) => text.slice(0, 60);

/**
 * A check of the counterparty (resolve) runs before any payment (pay): a
 * resolve step that comes after the first pay step moves to just before it.
 * Every route the router plans obeys it, the LLM's and a resume's extension too.
 */
export function checkBeforePay<T>(steps: readonly T[], domainOf: (step: T) => string): T[] {
  const out = [...steps];
  const pay = out.findIndex((s) => domainOf(s) === 'pay');
  const check = out.findIndex((s, i) => i > pay && pay >= 0 && domainOf(s) === 'resolve');
  if (check >= 0) out.splice(pay, 0, ...out.splice(check, 1));
  return out;
}
