import type { Deps } from '../../shared/deps.js';
import { iso } from '../../shared/db/knex.js';
import { currentSegmentFinal, openWaitpoint, stepsOf, type RunRow } from '../../shared/db/runs.js';
import { domainModule } from '../module-registry.js';
import { runHold } from './admission.js';

/** Links a client follows for a run. */
export function runLinks(runId: string) {
  return { self: `/v1/runs/${runId}`, events: `/v1/runs/${runId}/events`, cancel: `/v1/runs/${runId}/cancel` };
}

export function runSummary(run: RunRow) {
  return {
    runId: run.id,
    status: run.status,
    route: run.route,
    conversationId: run.conversation_id,
    taskId: run.task_id,
    proofCardId: run.proof_card_id,
    error: run.error,
    stuckReason: run.stuck_reason,
    createdAt: iso(run.created_at),
    updatedAt: iso(run.updated_at),
    finishedAt: iso(run.finished_at),
  };
}

/**
 * The full run: summary, routing, steps with timings, open waitpoint, hold (a queued run waiting for a place) and the
 * result of its current segment once it rested (its `final` event).
 */
export async function runDetail(deps: Pick<Deps, 'db'>, run: RunRow) {
  const [steps, waitpoint, final, hold] = await Promise.all([
    stepsOf(deps.db, run.id),
    openWaitpoint(deps.db, run.id),
    currentSegmentFinal(deps.db, run.id),
    runHold(deps.db, run),
  ]);
  const results = (final?.result as { results?: Record<string, unknown> } | undefined)?.results ?? {};
  // A domain may lift fields of its result to the top (a delivery run's stages and handoff), so the run reads as the
  // route that started it answered.
  const lifted = final ? Object.assign({}, ...run.route.map((d) => domainModule(d)?.runView?.(results) ?? {})) : {};
  return {
    ...lifted,
    ...runSummary(run),
    request: run.request,
    routing: run.routing,
    segment: run.segment,
    steps: steps.map((s) => ({
      stepId: s.id,
      segment: s.segment,
      index: s.idx,
      domain: s.domain,
      status: s.status,
      attempts: s.attempts,
      error: s.error,
      startedAt: iso(s.started_at),
      finishedAt: iso(s.finished_at),
      durationMs:
        s.started_at && s.finished_at ? new Date(s.finished_at).getTime() - new Date(s.started_at).getTime() : null,
    })),
    waitpoint: waitpoint
      ? {
          waitpointId: waitpoint.id,
          kind: waitpoint.kind,
          domain: waitpoint.domain,
          payload: waitpoint.payload,
          createdAt: iso(waitpoint.created_at),
          expiresAt: iso(waitpoint.expires_at),
          escalatedAt: iso(waitpoint.escalated_at),
        }
      : null,
    hold,
    result: final?.result ?? null,
    links: runLinks(run.id),
  };
}
