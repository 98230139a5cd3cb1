import type { Config } from '../config.js';
import { egressFetch } from './egress.js';

type LlmConfig = Pick<
  Config,
  'LLM_BASE_URL' | 'LLM_MODEL' | 'LLM_API_KEY' | 'LLM_TIMEOUT_MS' | 'AWP_ALLOW_PRIVATE_EGRESS'
>;

/** Whether an OpenAI-compatible endpoint is configured (LLM_BASE_URL and LLM_MODEL). */
export const llmConfigured = (config: LlmConfig) => Boolean(config.LLM_BASE_URL && config.LLM_MODEL);

/**
 * Asks the configured OpenAI-compatible chat endpoint (temperature 0) and reads the JSON object in its answer.
 * Null for any answer that is not one: a status other than 200, a truncated body, no object in the text. Network
 * and parse errors throw; each caller decides what a failure means for it (the router falls back, triage adds
 * nothing).
 */
export async function askLlmForJson(
  config: LlmConfig,
  system: string,
  user: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | null> {
  const res = await egressFetch(
    config.AWP_ALLOW_PRIVATE_EGRESS,
    `${config.LLM_BASE_URL!.replace(/\/$/, '')}/chat/completions`,
    {
      method: 'POST',
      timeoutMs: config.LLM_TIMEOUT_MS,
      maxBytes: 256 * 1024,
      ...(signal ? { signal } : {}),
      headers: {
        'content-type': 'application/json',
        ...(config.LLM_API_KEY ? { authorization: `Bearer ${config.LLM_API_KEY}` } : {}),
      },
      body: JSON.stringify({
        model: config.LLM_MODEL,
        temperature: 0,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
      }),
    },
  );
  if (res.status !== 200 || res.truncated) return null;
  const body = JSON.parse(res.text) as { choices?: Array<{ message?: { content?: string } }> };
  const text = body.choices?.[0]?.message?.content ?? '';
  const parsed: unknown = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
}
