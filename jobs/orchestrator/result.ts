import type { StepRow } from '../../shared/db/runs.js';

/**
 * The orchestrator response body of a run, built from its completed steps:
 * results keyed by domain (latest output wins across segments), the
 * agentConversation lines, and a compact trace.
 */
export function assembleResult(route: string[], steps: StepRow[]) {
  const results: Record<string, unknown> = {};
  const agentConversation: string[] = [];
  const trace: Array<Record<string, unknown>> = [];
  for (const s of steps) {
    trace.push({
      step: s.id,
      domain: s.domain,
      status: s.status,
      attempts: s.attempts,
      startedAt: s.started_at,
      finishedAt: s.finished_at,
      ...(s.error ? { error: s.error } : {}),
    });
    if (s.status !== 'completed' || !s.output) continue;
    results[s.domain] = s.output;
    for (const line of s.conversation ?? []) agentConversation.push(`[${s.domain}] ${line}`);
  }
  return { route, results, agentConversation, trace };
}
