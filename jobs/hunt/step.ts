import { invalidPayload } from '../../shared/errors.js';
import type { Candidate } from '../../shared/schemas/hunt.js';
import type { StepHandler, StepInput } from '../step.js';
import { budgetFrom, detectIntent, outcomeOf, parseBudget, toChoices, type Choice } from './logic.js';
import { show, type Money } from './money.js';
import { findLeads, leadChoice, type Lead } from './leads.js';
import { huntSearch } from './search.js';
import type { PageReport } from './web-source.js';

/** The run's budget field, else the one its words state ("under 400 euros"), in its own currency. */
function budgetOf(input: StepInput): Money | null {
  return budgetFrom(input.extras.budget) ?? parseBudget(input.clause) ?? parseBudget(input.request);
}

function urlsOf(input: StepInput): string[] {
  return Array.isArray(input.extras.urls) ? input.extras.urls.filter((u): u is string => typeof u === 'string') : [];
}

/** One `domainStream` line per page, as it is done. */
function pageLine(r: PageReport): string {
  const host = new URL(r.url).host;
  return r.ok ? `Read ${host}: ${r.offers} offer(s), ${r.eligible} eligible` : `Could not use ${host}: ${r.error}`;
}

function evidenceOf(c: Candidate) {
  const compared = c.netInBudgetCurrency;
  const converted = compared?.rate ? ` = ${show(compared)} at ${compared.rate} (ECB, ${compared.rateDate})` : '';
  const net = c.net ? ` (net ${show(c.net)}${converted})` : '';
  const stock = c.availability ? `, ${c.availability}` : '';
  return {
    claim: `${c.title}: ${c.price} ${c.currency}${net}${stock}`,
    source: c.url ?? c.vendor,
    sourceBound: Boolean(c.url),
  };
}

function resumed(input: StepInput) {
  const resume = input.resume!;
  const choices = (resume.data?.choices ?? []) as Choice[];
  const selected = choices.find((c) => c.itemId === resume.itemId);
  if (!selected)
    throw invalidPayload(`itemId ${resume.itemId} is not one of the offered choices`, {
      choices: choices.map((c) => c.itemId),
    });
  const action = resume.action ?? 'buy';
  const priced = selected.price !== null ? ` (${selected.price} ${selected.currency})` : '';
  return {
    output: { selected, action, choices },
    evidence: [
      {
        claim: selected.price !== null ? `${selected.title} at ${selected.price} ${selected.currency}` : selected.title,
        source: selected.url ?? selected.vendor ?? 'catalog',
        sourceBound: Boolean(selected.url ?? selected.vendor),
      },
    ],
    conversation: [`You chose "${selected.title}"${priced} to ${action}.`],
  };
}

/**
 * The hunt step: reads the catalog and the pages the request names (`urls`),
 * then answers with one clear winner, asks the user to choose among
 * competing eligible candidates (NEEDS_INPUT), or says why none qualifies.
 * Resumed with an itemId, it records the selection.
 */
export const huntStep: StepHandler = async (input, deps) => {
  if (input.resume?.kind === 'NEEDS_INPUT') return resumed(input);

  const budget = budgetOf(input);
  const urls = urlsOf(input);
  // What to look for comes from hunt's own clause; what the user means to do with it, from the whole request.
  const intent = detectIntent(input.request);
  await input.emit(urls.length > 0 ? `Reading ${urls.length} page(s), the catalog and the web` : 'Searching', {
    budget,
    intent,
    urls: urls.length,
  });
  const cheapestFirst = /cheap/i.test(input.clause);
  const search = await huntSearch(deps, input.accountId, input.clause, {
    urls,
    budget,
    cheapestFirst,
    signal: input.signal,
    onPage: (r) =>
      input.emit(pageLine(r), {
        url: r.url,
        ok: r.ok,
        httpStatus: r.httpStatus,
        offers: r.offers,
        eligible: r.eligible,
        ms: r.ms,
        ...(r.snapshotHash ? { snapshotHash: r.snapshotHash } : {}),
      }),
  });
  const { candidates } = search;
  const eligible = candidates.filter((c) => c.eligible);
  // To contact someone, the businesses the places provider knows a way to reach are leads too.
  let leads: Lead[] = [];
  if (intent === 'contact') {
    const found = await findLeads(deps, input.accountId, search.terms, input.signal);
    leads = found.leads;
    search.sourceTelemetry.leads = found.telemetry;
  }
  const output: Record<string, unknown> = {
    query: search.terms,
    budget,
    comparison: search.comparison,
    intent,
    candidates,
    ranking: search.ranking,
    sourceTelemetry: search.sourceTelemetry,
    ...(intent === 'contact' ? { leads } : {}),
  };
  const conversation = [`Found ${candidates.length} candidate(s) for "${search.terms}", ${eligible.length} eligible.`];
  const openQuestions: string[] = [];
  const searchSources = search.sourceTelemetry.search as { status?: string; reason?: string } | undefined;
  if (searchSources?.status === 'unavailable' && searchSources.reason)
    conversation.push(`The web was not searched: ${searchSources.reason}.`);
  if (candidates.length === 0 && leads.length === 0)
    openQuestions.push(
      `Nothing matches ` +
        `"${search.terms}" in the catalog${urls.length > 0 ? ', the pages given' : ''} or what the search ` +
        `sources found; import listings, configure a search source, give product pages (urls) or widen the request.`,
    );
  else if (eligible.length === 0)
    openQuestions.push(
      'No candidate is eligible (in stock, total clear, convertible to the budget currency, within budget); ' +
        "see each one's reasons.",
    );
  const rejected = candidates
    .filter((c) => !c.eligible)
    .map((c) => ({ option: c.title, reason: c.reasons.join('; ') || 'not eligible' }));
  const evidence = [
    ...candidates.slice(0, 10).map(evidenceOf),
    ...leads.slice(0, 5).map((l) => ({
      claim: `${l.name}: ${[l.phone, l.email, l.website].filter(Boolean).join(', ')}`,
      source: l.source,
      sourceBound: true,
    })),
  ];
  const result = { output, evidence, conversation, openQuestions, rejected };

  const outcome = outcomeOf(intent, candidates, cheapestFirst);
  if (outcome.kind === 'none' && leads.length > 0) {
    const choices = leads.slice(0, 5).map(leadChoice);
    conversation.push(`${leads.length} business(es) to contact: ${leads.map((l) => l.name).join(', ')}.`);
    if (choices.length === 1) {
      output.selected = choices[0];
      return result;
    }
    output.inputKind = 'choice';
    output.choices = choices;
    conversation.push('Which one should I contact? Reply with its itemId.');
    return { ...result, suspend: { kind: 'NEEDS_INPUT', payload: { choices, intent } } };
  }
  if (outcome.kind === 'choice') {
    const choices = toChoices(candidates);
    output.inputKind = 'choice';
    output.choices = choices;
    conversation.push(
      `${choices.length} candidates qualify. Which one should I ` +
        `${intent === 'contact' ? 'contact' : intent === 'buy' ? 'buy' : 'go with'}? Reply with its itemId.`,
    );
    return { ...result, suspend: { kind: 'NEEDS_INPUT', payload: { choices, intent } } };
  }
  if (outcome.kind === 'winner') {
    output.selected = toChoices([outcome.winner])[0];
    conversation.push(
      `Best fit: ` +
        `"${outcome.winner.title}"` +
        `${outcome.winner.netInBudgetCurrency ? ` at ${show(outcome.winner.netInBudgetCurrency)} net` : ''}.`,
    );
  }
  return result;
};
