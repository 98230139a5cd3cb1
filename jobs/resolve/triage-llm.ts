import type { Config } from '../../shared/config.js';
import { askLlmForJson, llmConfigured } from '../../shared/http/llm-json.js';
import type { SourceText } from './contradictions.js';
import type { AddedSignal } from './triage.js';

/**
 * The optional LLM pass of scam triage (LLM_BASE_URL + LLM_MODEL, the
 * router's OpenAI-compatible endpoint). It may only add signals, each a
 * quote that must occur verbatim in the source it names (so every added
 * signal has a real span); the rule findings are computed without it and
 * never removed. Any error, timeout or malformed answer: nothing is added.
 */

export type LlmOutcome = { status: 'notConfigured' | 'added' | 'nothingAdded' | 'fellBack'; signals: AddedSignal[] };

const MAX_SIGNALS = 10;

export async function llmSignals(config: Config, sources: SourceText[], signal?: AbortSignal): Promise<LlmOutcome> {
  if (!llmConfigured(config)) return { status: 'notConfigured', signals: [] };
  try {
    const parsed = await askLlmForJson(
      config,
      'You are a fraud analyst. List signs of a scam in the sources (FTC signs: impersonation, ' +
        'problem or prize, pressure, a specific payment method). Answer with JSON only: {"signals": ' +
        '[{"source": "<source name>", "quote": "<exact text copied from that source>", "signal": ' +
        '"<what it shows>"}]}. Quote exactly; list nothing when there is no sign.',
      JSON.stringify(sources),
      signal,
    );
    if (!parsed || !Array.isArray(parsed.signals)) return { status: 'fellBack', signals: [] };
    const added: AddedSignal[] = [];
    for (const s of parsed.signals.slice(0, MAX_SIGNALS) as Array<Record<string, unknown>>) {
      const source = sources.find((x) => x.source === s?.source);
      const quote = typeof s?.quote === 'string' ? s.quote : '';
      const start = source && quote.length >= 3 ? source.text.indexOf(quote) : -1;
      if (start < 0 || typeof s.signal !== 'string') continue; // a quote not in its source is not evidence
      added.push({
        source: source!.source,
        span: { text: quote, start, end: start + quote.length },
        signal: s.signal.slice(0, 200),
      });
    }
    return { status: added.length > 0 ? 'added' : 'nothingAdded', signals: added };
  } catch {
    if (signal?.aborted) throw signal.reason;
    return { status: 'fellBack', signals: [] };
  }
}
