import jsonLogic from 'json-logic-js';

/**
 * The condition language of signal rules: JSON Logic (json-logic-js),
 * restricted to comparison, boolean and `var` operators over the signal's
 * `subject` and `value`. json-logic-js evaluates whatever operator it knows
 * (string, array and arithmetic ones, `method`, which calls a method of a
 * value, and any operator added at run time), so a rule is checked against
 * this allow-list when it is written, and a condition is only ever evaluated
 * after that check.
 */
export const CONDITION_OPERATORS = [
  'var',
  '==',
  '===',
  '!=',
  '!==',
  '>',
  '>=',
  '<',
  '<=',
  '!',
  '!!',
  'and',
  'or',
] as const;
const ALLOWED = new Set<string>(CONDITION_OPERATORS);

/** A `var` path reads the signal's subject or value; prototype members are never a path. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);
const ROOTS = new Set(['subject', 'value']);

export const CONDITION_LIMITS = { depth: 12, nodes: 200 } as const;

export interface ConditionProblem {
  path: string;
  message: string;
  operator?: string;
}

/**
 * Every problem of a condition: unknown operators (by name), bad `var` paths, shapes JSON Logic does not have, size. []
 * when it is usable.
 */
export function checkCondition(condition: unknown): ConditionProblem[] {
  const problems: ConditionProblem[] = [];
  let nodes = 0;
  const walk = (node: unknown, path: string, depth: number): void => {
    nodes++;
    if (depth > CONDITION_LIMITS.depth)
      return void problems.push({ path, message: `nested deeper than ${CONDITION_LIMITS.depth} levels` });
    if (node === null || ['string', 'number', 'boolean'].includes(typeof node)) return;
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}/${i}`, depth + 1));
    if (typeof node !== 'object') return void problems.push({ path, message: `${typeof node} is not a JSON value` });
    const keys = Object.keys(node);
    if (keys.length !== 1)
      return void problems.push({
        path,
        message: `an operation is an object with exactly one operator key; found ${keys.length} keys`,
      });
    const op = keys[0]!;
    const args = (node as Record<string, unknown>)[op];
    if (!ALLOWED.has(op))
      return void problems.push({
        path,
        operator: op,
        message: `operator ${JSON.stringify(op)} is not allowed; use ${CONDITION_OPERATORS.join(', ')}`,
      });
    if (op === 'var') return checkVar(args, `${path}/var`, problems);
    walk(args, `${path}/${escapePointer(op)}`, depth + 1);
  };
  walk(condition, '', 0);
  if (nodes > CONDITION_LIMITS.nodes) problems.push({ path: '', message: `more than ${CONDITION_LIMITS.nodes} nodes` });
  return problems;
}

/** `{"var": "value.temp"}` or `{"var": ["value.temp", default]}`: a literal path under subject or value. */
function checkVar(args: unknown, path: string, problems: ConditionProblem[]): void {
  const [name, fallback] = Array.isArray(args) ? args : [args];
  if (Array.isArray(args) && (args.length < 1 || args.length > 2))
    return void problems.push({ path, message: 'var takes a path and an optional default' });
  if (typeof name !== 'string')
    return void problems.push({ path, message: 'a var path is a literal string (subject, value or value.<field>)' });
  const segments = name.split('.');
  if (!ROOTS.has(segments[0]!))
    problems.push({ path, message: `var ${JSON.stringify(name)} reads neither subject nor value` });
  if (segments.some((s) => FORBIDDEN_SEGMENTS.has(s)))
    problems.push({ path, message: `var ${JSON.stringify(name)} names a prototype member` });
  if (fallback !== undefined && fallback !== null && typeof fallback === 'object')
    problems.push({ path, message: 'a var default is a literal' });
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The operators a condition uses that the language does not allow, each once. */
export function disallowedOperators(problems: ConditionProblem[]): string[] {
  return [...new Set(problems.flatMap((p) => (p.operator ? [p.operator] : [])))];
}

/** Whether a checked condition holds for the signal; no condition matches every signal of the rule's type. */
export function conditionHolds(condition: unknown, signal: { subject: string; value: unknown }): boolean {
  if (condition === null || condition === undefined) return true;
  return jsonLogic.truthy(
    jsonLogic.apply(condition as jsonLogic.RulesLogic, { subject: signal.subject, value: signal.value ?? null }),
  );
}

/** What happens to a match, decided from the rule's window and limit and its recent matches. */
export type MatchAdmission = 'start' | 'deduplicated' | 'rateLimited';

export function admitMatch(
  rule: { dedupWindowSeconds: number; maxRunsPerHour: number | null },
  recent: { sameSubjectInWindow: number; startedLastHour: number },
): MatchAdmission {
  if (rule.dedupWindowSeconds > 0 && recent.sameSubjectInWindow > 0) return 'deduplicated';
  if (rule.maxRunsPerHour !== null && recent.startedLastHour >= rule.maxRunsPerHour) return 'rateLimited';
  return 'start';
}
