import { AppError, invalidPayload } from '../../shared/errors.js';
import { DOMAIN_NAMES, isDomain, type DomainName } from '../../shared/domain-names.js';
import { fromModules } from '../module-registry.js';
import type { DomainModule } from '../domain.js';
import { train, type Classifier } from './classifier.js';
import { asksLegitimacy, planRoute, splitRequest, type PlannedPart, type Segment } from './logic.js';

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
 * What the router knows: the examples the classifier was trained on, the classifier, and each domain's keyword rule.
 */
export interface RouterKnowledge {
  examples: Record<string, string[]>;
  classifier: Classifier;
  lexicon: Array<[RegExp, DomainName]>;
}

/** Learns from the domains' vocabularies (a test trains on a part of them to measure the rest). */
export function learn(domains: ReadonlyArray<Pick<DomainModule, 'name' | 'vocabulary'>>): RouterKnowledge {
  const examples = Object.fromEntries(domains.map((d) => [d.name, d.vocabulary.examples]));
  const lexicon = domains.map((d): [RegExp, DomainName] => [d.vocabulary.lexicon, d.name as DomainName]);
  return { examples, classifier: train(examples), lexicon };
}

/** Learnt once from the vocabularies of the domains a request may be routed to. */
export const routerVocabulary = fromModules((m) => learn(m.domains.filter((d) => d.routable !== false)));

/** The domains the router (and the LLM router) may pick: all but those only a `domainRoute` reaches. */
export const routableDomains = fromModules((m) => m.domains.filter((d) => d.routable !== false).map((d) => d.name));

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
  lexicon: RouterKnowledge['lexicon'],
): boolean {
  if (FOLLOW_UP.test(text)) return true;
  const words = text.split(/\s+/).length;
  if (words > SHORT_WORDS) return false;
  if (prev.waiting && words <= 6) return true;
  if (CONTINUATION.test(text)) return !lexicon.some(([re, d]) => re.test(text) && !prev.route.includes(d));
  return !lexicon.some(([re]) => re.test(text)) && (whole[0]?.score ?? 0) < FOLLOW_UP_SCORE;
}

/** The least share a part's best domain needs; below it (or with fewer than MIN_KNOWN known words) it is unroutable. */
const MIN_SCORE = 0.1;
const MIN_KNOWN = 2;
/** A short turn that names no domain and that the classifier places less surely than this leans on the previous one. */
const FOLLOW_UP_SCORE = 0.4;
/**
 * Below this a part is undecided: it joins the part it follows ("… and fix it if it breaks") or the context before it.
 */
const DECISIVE = 0.5;
/**
 * How much a keyword rule multiplies its domain's odds when it is the only
 * rule that matches a part: it decides when the classifier is unsure or
 * agrees, and loses to the classifier's clear evidence for another domain
 * ("call me when you find a cheaper flight" is a hunt).
 */
const KEYWORD_ODDS = 20;

type Scores = Array<{ domain: string; score: number }>;
interface Decision {
  domain: DomainName | null;
  score: number;
  by: string;
}

const rounded = (scores: Array<{ label: string; score: number }>): Scores =>
  scores.map((s) => ({ domain: s.label, score: Math.round(s.score * 1000) / 1000 }));

/**
 * The domain of one part of a request: a legitimacy question is resolve; else the classifier, with the keyword rules.
 */
function decide({ classifier, lexicon }: RouterKnowledge, text: string): Decision {
  if (asksLegitimacy(text)) return { domain: 'resolve', score: 1, by: 'asks whether something is legitimate' };
  const hits = lexicon.filter(([re]) => re.test(text)).map(([, d]) => d);
  const keyword = hits.length === 1 ? hits[0] : undefined;
  // Rules that disagree leave the choice between their domains to the classifier.
  const odds = (label: string) =>
    label === keyword ? KEYWORD_ODDS : hits.length > 1 && !hits.includes(label as DomainName) ? 0 : 1;
  const weighted = classifier.classify(text).map((s) => ({ ...s, w: s.score * odds(s.label) }));
  const sum = weighted.reduce((a, s) => a + s.w, 0);
  const top = weighted.reduce((a, s) => (s.w > a.w ? s : a));
  const score = top.w / sum;
  if (!keyword && classifier.known(text) < MIN_KNOWN) return { domain: null, score, by: 'too few known words' };
  const against =
    hits.length > 1 ? ` (keywords of ${hits.join(', ')} disagree)` : keyword ? ` over ${keyword}'s keywords` : '';
  const by = top.label === keyword ? `keyword rule of ${keyword}` : `classifier${against}`;
  return { domain: score >= MIN_SCORE && isDomain(top.label) ? top.label : null, score, by };
}

interface Group {
  segments: Segment[];
  head: Segment;
  decision: Decision;
}

/**
 * Parts that are context ("My landlord wants …") go with the request that
 * follows them (or, at the end, the one before). A part the classifier cannot
 * place on its own is decided with the context before it, else goes with the
 * part it follows ("… and fix it if it breaks"), else is context for the next.
 * A request of statements only ("the site is down") is its own request.
 */
function groupParts(knowledge: RouterKnowledge, segments: Segment[]): Group[] {
  const asks = segments.some((s) => s.kind !== 'statement');
  const groups: Group[] = [];
  let context: Segment[] = [];
  for (const raw of segments) {
    const s: Segment = asks ? raw : { ...raw, kind: 'ask' };
    if (s.kind === 'statement') {
      context.push(s);
      continue;
    }
    const last = groups[groups.length - 1];
    const own = decide(knowledge, s.core);
    if (own.domain && own.score >= DECISIVE) {
      groups.push({ segments: [...context, s], head: s, decision: own });
      context = [];
    } else if (context.length > 0) {
      // context and an unclear request ("There's an outage on search; triage it"): decided together
      const all = [...context, s];
      groups.push({ segments: all, head: s, decision: decide(knowledge, all.map((c) => c.core).join('. ')) });
      context = [];
    } else if (last) last.segments.push(s);
    else context.push(s);
  }
  const last = groups[groups.length - 1];
  if (last) last.segments.push(...context);
  else if (context.length > 0) {
    const head = context.find((s) => s.kind !== 'statement') ?? context[0]!;
    groups.push({ segments: context, head, decision: decide(knowledge, context.map((c) => c.core).join('. ')) });
  }
  return groups;
}

const joined = (segments: Segment[]) =>
  segments.map((s, i) => (i === 0 ? s.text : `${s.link === 'sentence' ? ' ' : ', '}${s.text}`)).join('');

/** Validates a forced route: known domains only, at most 12 steps. */
export function forcedRoute(names: string[]): DomainName[] {
  const unknown = names.filter((n) => !isDomain(n));
  if (unknown.length > 0)
    throw invalidPayload(`domainRoute names unknown domains: ${unknown.join(', ')}`, { known: DOMAIN_NAMES });
  return names as DomainName[];
}

export function routeRequest(input: RouteInput, knowledge = routerVocabulary()): RouteDecision {
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
  const whole = rounded(knowledge.classifier.classify(text));
  const prev = input.previous;
  if (prev && prev.route.length > 0 && isFollowUp(text, prev, whole, knowledge.lexicon)) {
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
  const parts: PlannedPart[] = groupParts(knowledge, splitRequest(text)).flatMap((g) => {
    const own = g.segments.slice(g.segments.indexOf(g.head));
    // "A recruiter wants me to call her back and pay 150 dollars": joined by "and" to a statement, it is more of it
    const continues = g.head.link === 'sequence' && g.segments[g.segments.indexOf(g.head) - 1]?.kind === 'statement';
    return g.decision.domain
      ? [
          {
            domain: g.decision.domain,
            text: joined(g.segments),
            core: g.head.core,
            link: g.head.link,
            kind: continues ? 'statement' : g.head.kind,
            legitimacy: own.some((s) => asksLegitimacy(s.core)),
            why: g.decision.by,
          },
        ]
      : [];
  });
  const plan = planRoute(parts);
  const route = plan.route.filter(isDomain);
  const why = plan.why;
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
    clauses: plan.parts,
  };
}
