import { invalidPayload } from '../../shared/errors.js';
import type { StepHandler } from '../step.js';
import { detectIntent, needsChoice, parseBudget, toChoices, type Choice } from './logic.js';
import { huntSearch } from './search.js';

/**
 * The hunt step: searches the account's catalog for the request, and either
 * returns candidates, asks the user to choose (NEEDS_INPUT), or, resumed
 * with an itemId, records the selection.
 */
export const huntStep: StepHandler = async (input, deps) => {
  if (input.resume?.kind === 'NEEDS_INPUT') {
    const choices = (input.resume.data?.choices ?? []) as Choice[];
    const selected = choices.find((c) => c.itemId === input.resume!.itemId);
    if (!selected) throw invalidPayload(`itemId ${input.resume.itemId} is not one of the offered choices`, { choices: choices.map((c) => c.itemId) });
    return {
      output: { selected, action: input.resume.action ?? 'buy', choices },
      evidence: [{ claim: `${selected.title} at ${selected.price} ${selected.currency}`, source: selected.vendor ?? 'catalog', sourceBound: Boolean(selected.vendor) }],
      conversation: [`You chose "${selected.title}" (${selected.price} ${selected.currency}) to ${input.resume.action ?? 'buy'}.`],
    };
  }

  const budgetUsd = typeof (input.extras.budget as { maxUsd?: number } | undefined)?.maxUsd === 'number'
    ? (input.extras.budget as { maxUsd: number }).maxUsd
    : parseBudget(input.clause) ?? parseBudget(input.request);
  // What to look for comes from hunt's own clause; what the user means to do with it, from the whole request.
  const intent = detectIntent(input.request);
  await input.emit('Searching the catalog', { budgetUsd, intent });
  const search = await huntSearch(deps, input.accountId, input.clause, { budgetUsd, cheapestFirst: /cheap/i.test(input.clause) });
  const eligible = search.candidates.filter((c) => c.eligible);
  const evidence = search.candidates.slice(0, 10).map((c) => ({
    claim: `${c.title}: ${c.price} ${c.currency}${c.netUsd !== null ? ` (net $${c.netUsd})` : ''}`,
    source: c.url ?? c.vendor,
    sourceBound: Boolean(c.url),
  }));
  const output: Record<string, unknown> = { query: search.terms, budgetUsd, intent, candidates: search.candidates, sourceTelemetry: search.sourceTelemetry };
  const conversation = [`Found ${search.candidates.length} listing(s) for "${search.terms}", ${eligible.length} within budget.`];
  const openQuestions: string[] = [];
  if (search.candidates.length === 0) openQuestions.push(`No catalog listing matches "${search.terms}"; import listings or widen the request.`);
  else if (eligible.length === 0) openQuestions.push('Every match is over budget or not priced in USD; raise the budget?');
  const rejected = search.candidates.filter((c) => !c.eligible).map((c) => ({ option: c.title, reason: c.reasons.join('; ') || 'not eligible' }));

  if (needsChoice(intent, search.candidates)) {
    const choices = toChoices(search.candidates);
    output.inputKind = 'choice';
    output.choices = choices;
    conversation.push(`Which one should I ${intent === 'contact' ? 'contact' : 'buy'}? Reply with its itemId.`);
    return { output, evidence, conversation, openQuestions, rejected, suspend: { kind: 'NEEDS_INPUT', payload: { choices, intent } } };
  }
  if (eligible.length === 1 && intent !== 'browse') output.selected = toChoices(eligible)[0];
  return { output, evidence, conversation, openQuestions, rejected };
};
