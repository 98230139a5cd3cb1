import { AppError, invalidPayload } from '../../shared/errors.js';
import { DOMAIN_NAMES, isDomain, type DomainName } from '../../shared/domain-names.js';
import { fromModules } from '../module-registry.js';
import { train } from './classifier.js';

/**
 * The deterministic router: request text (+ the previous turn of the same
 * conversation) → an ordered domain route, with the reasons. Pure: no I/O.
 */
export interface RouteInput {
  request: string;
  domainRoute?: string[];
  previous?: { route: string[]; status: string; waiting?: string | null } | null;
}

export interface RouteDecision {
  route: DomainName[];
  followUp: boolean;
  reason: string;
  source: 'forced' | 'deterministic' | 'llm';
  classification: Array<{ domain: string; score: number }>;
  /** The part of the request each routed domain was chosen for (its step works on that part). */
  clauses?: Partial<Record<DomainName, string>>;
}

/**
 * What the router knows, learnt once from the modules' vocabularies: every
 * domain's shipped examples (what the classifier is trained on), and the
 * words that name a domain outright, most specific vocabularies first (a hit
 * outweighs the classifier for its clause).
 */
export const routerVocabulary = fromModules((m) => {
  const examples: Record<string, string[]> = Object.fromEntries(m.domains.map((d) => [d.name, d.vocabulary.examples]));
  const lexicon = [...m.domains]
    .sort((a, b) => a.vocabulary.precedence - b.vocabulary.precedence)
    .map((d): [RegExp, DomainName] => [d.vocabulary.lexicon, d.name as DomainName]);
  return { examples, classifier: train(examples), lexicon };
});

const FOLLOW_UP = new RegExp(
  [
    String.raw`^(yes|yeah|ok(ay)?|sure|go ahead|do it|proceed|confirm(ed)?|that one`,
    String.raw`|the (first|second|third|last|cheap\w*) (one|option)|buy it|book it|call them`,
    String.raw`|pay (for )?it|option \d+|#?\d+)\b`,
  ].join(''),
  'i',
);
/** Words that lean on the previous turn: "and what about the cheaper one?", "same for the other one". */
const CONTINUATION = new RegExp(
  [
    String.raw`^(and|but|or|also|so|then|what about|how about|same|instead)\b|\b(cheaper`,
    String.raw`|pricier|bigger|smaller|other one|another one|that one|this one|the (first`,
    String.raw`|second|third|last|other|next) one|it|them|those|these)\b`,
  ].join(''),
  'i',
);
const SHORT_WORDS = 8;

/**
 * A turn continues the conversation's previous one when it says so outright
 * ("go ahead", "option 2"), when it is short and leans on that turn ("what
 * about the cheaper one?"), or when it is short and names no domain of its
 * own, whether or not the previous run has finished.
 */
function isFollowUp(
  text: string,
  prev: NonNullable<RouteInput['previous']>,
  whole: Array<{ domain: string; score: number }>,
): boolean {
  if (FOLLOW_UP.test(text)) return true;
  const words = text.split(/\s+/).length;
  if (words > SHORT_WORDS) return false;
  if (prev.waiting && words <= 6) return true;
  const { lexicon } = routerVocabulary();
  if (CONTINUATION.test(text)) return !lexicon.some(([re, d]) => re.test(text) && !prev.route.includes(d));
  return !lexicon.some(([re]) => re.test(text)) && (whole[0]?.score ?? 0) < MIN_SCORE * 2;
}

const CLAUSE_SPLIT = /\s*(?:,?\s*\b(?:and then|then|after that|afterwards|and also|finally)\b|;|\.\s+)\s*/i;
const AND_SPLIT =
  /\s+\band\b\s+(?=(?:pay|buy|call|phone|verify|audit|check|book|purchase|contact|settle|deploy|ship)\b)/i;
const MIN_SCORE = 0.2;
/** "buy a road bike": something must be found before it can be paid for. */
const BUY_SOMETHING = /\b(buy|purchase|order)\s+(me\s+)?(a|an|some|the cheapest|the best|new|used|\d+)\b/i;

function classifyClause(clause: string): {
  domain: DomainName | null;
  scores: Array<{ domain: string; score: number }>;
} {
  const { classifier, lexicon } = routerVocabulary();
  const scores = classifier
    .classify(clause)
    .map((s) => ({ domain: s.label, score: Math.round(s.score * 1000) / 1000 }));
  const lexical = lexicon.find(([re]) => re.test(clause));
  if (lexical) return { domain: lexical[1], scores };
  const top = scores[0];
  return { domain: top && top.score >= MIN_SCORE && isDomain(top.domain) ? top.domain : null, scores };
}

/** Validates a forced route: known domains only, at most 12 steps. */
export function forcedRoute(names: string[]): DomainName[] {
  const unknown = names.filter((n) => !isDomain(n));
  if (unknown.length > 0)
    throw invalidPayload(`domainRoute names unknown domains: ${unknown.join(', ')}`, { known: DOMAIN_NAMES });
  return names as DomainName[];
}

export function routeRequest(input: RouteInput): RouteDecision {
  const text = input.request.trim();
  if (input.domainRoute?.length) {
    return {
      route: forcedRoute(input.domainRoute),
      followUp: false,
      reason: 'domainRoute given: NLP routing skipped',
      source: 'forced',
      classification: [],
    };
  }
  const whole = routerVocabulary()
    .classifier.classify(text)
    .map((s) => ({ domain: s.label, score: Math.round(s.score * 1000) / 1000 }));
  const prev = input.previous;
  if (prev && prev.route.length > 0 && isFollowUp(text, prev, whole)) {
    return {
      route: prev.route.filter(isDomain),
      followUp: true,
      reason:
        `follow-up to the previous turn ` +
        `(${prev.status}${prev.waiting ? `, waiting for ${prev.waiting}` : ''}): continuing its route`,
      source: 'deterministic',
      classification: whole,
    };
  }
  const clauses = text
    .split(CLAUSE_SPLIT)
    .flatMap((c) => c.split(AND_SPLIT))
    .map((c) => c.trim())
    .filter(Boolean);
  const route: DomainName[] = [];
  const why: string[] = [];
  const parts: Partial<Record<DomainName, string>> = {};
  for (const clause of clauses) {
    const { domain } = classifyClause(clause);
    if (domain === 'pay' && BUY_SOMETHING.test(clause) && !route.includes('hunt')) {
      route.push('hunt');
      parts.hunt = clause;
      why.push(`"${clause.slice(0, 60)}" names something to buy → hunt first`);
    }
    if (domain && route[route.length - 1] !== domain) {
      route.push(domain);
      parts[domain] = parts[domain] ? `${parts[domain]}, ${clause}` : clause;
      why.push(`"${clause.slice(0, 60)}" → ${domain}`);
    }
  }
  if (route.length === 0) {
    throw new AppError('invalidPayload', 'Could not route the request to any domain; rephrase it or pass domainRoute', {
      classification: whole.slice(0, 3),
    });
  }
  return {
    route,
    followUp: false,
    reason: why.join('; '),
    source: 'deterministic',
    classification: whole,
    clauses: parts,
  };
}
