import type { Deps } from '../../shared/deps.js';
import { conflict, invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import type { RunRow } from '../../shared/db/runs.js';
import { getTask } from '../../shared/db/tasks.js';
import { moveTask } from '../tasks/service.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { OrchestratorRequest } from './schemas.js';
import { availableDomains, stepHandler } from '../steps.js';
import { domainModule } from '../domains.js';
import { extendRoute } from './extend-route.js';
import { movesInto, WAIT_STATUSES } from './run-state.js';
import { insertRun, type RunInsert, lockOpenWaitpoint, lockRun, queueNextSegment, resolveWaitpoint } from '../../shared/db/run-writes.js';
import { recordTurn } from '../../shared/db/conversations.js';
import { decideRoute, previousTurn } from './decide.js';
import { enqueueSegment } from './flow.js';
import { inRunTx } from './run-events.js';

/**
 * Starts a run, or resumes the conversation's waiting run when the request
 * is a follow-up carrying `itemId`/`action`. Writes the run and its first
 * events in one transaction, then enqueues the flow; returns the run row.
 */
export async function submitRun(deps: Deps, principal: Principal, body: OrchestratorRequest): Promise<RunRow> {
  const { conversation, previous } = await previousTurn(deps, principal.accountId, body.conversationId);
  if ((body.itemId || body.action) && body.conversationId) {
    const lastRunId = conversation?.context?.lastRunId ?? conversation?.last_run_id;
    if (!lastRunId) throw conflict(`Conversation ${body.conversationId} has no run waiting for input`);
    return resumeRun(deps, principal, lastRunId, { itemId: body.itemId, action: body.action, data: body.metadata ?? {} });
  }
  const decision = await decideRoute(deps, { request: body.request, domainRoute: body.domainRoute, previous });
  const missing = decision.route.filter((d) => !stepHandler(d));
  if (missing.length > 0) {
    throw policyViolation(`Domain${missing.length > 1 ? 's' : ''} ${[...new Set(missing)].join(', ')} ${missing.length > 1 ? 'are' : 'is'} not available yet; this service runs ${availableDomains().join(', ')}`, { route: decision.route, missing, available: availableDomains() });
  }
  if (body.taskId && !(await getTask(deps.db, principal.accountId, body.taskId))) throw notFound(`Task ${body.taskId}`);

  const runId = newId('run');
  const { stream: _stream, request, conversationId, taskId, channel, ...rest } = body;
  const row: RunInsert = {
    id: runId, accountId: principal.accountId, conversationId: conversationId ?? null, taskId: taskId ?? null, request,
    input: rest, route: decision.route, routing: decision as unknown as Record<string, unknown>, channel: channel ?? 'api',
  };
  const created = { type: 'trace', data: { event: 'run.created', runId, route: decision.route, routing: { source: decision.source, followUp: decision.followUp, reason: decision.reason } } };
  // The run and its first event are one statement; a conversation turn or a task move joins them in one transaction.
  // Not published: nobody can follow a run before its id is answered, and a follower reads this event from Postgres first.
  const run = conversationId || taskId
    ? await deps.db.transaction(async (trx) => {
      const inserted = await insertRun(trx, row, created);
      if (conversationId) await recordTurn(trx, principal.accountId, conversationId, runId);
      if (taskId) {
        const task = await getTask(trx, principal.accountId, taskId, true);
        if (task && (task.status === 'open' || task.status.startsWith('awaiting'))) await moveTask(trx, principal.accountId, task, 'running', { actor: `run:${runId}`, note: 'run started' });
      }
      return inserted;
    })
    : await insertRun(deps.db, row, created);
  await enqueueOrLeaveToSweep(deps, runId, () => enqueueSegment(deps, runId, 0, decision.route));
  return run;
}

/**
 * Resolves the run's open waitpoint exactly once (a second resolve is 409)
 * and enqueues the next segment from the waiting step onwards. The answer's
 * action must be one the waiting domain accepts; an action that continues
 * into another domain (`buy` → pay) extends the route after the waiting
 * step, and the routing decision records it.
 */
export async function resumeRun(deps: Deps, principal: Principal, runId: string, answer: { itemId?: string; action?: string; approved?: boolean; data?: Record<string, unknown> }): Promise<RunRow> {
  const result = await inRunTx(deps, runId, principal.accountId, async (trx, emit) => {
    // Read under the row lock: a concurrent resume, cancel or finalize of this run waits here, then sees what this one did.
    const locked = await lockRun(trx, principal.accountId, runId);
    if (!locked) throw notFound(`Run ${runId}`);
    const wp = WAIT_STATUSES.includes(locked.status) ? await lockOpenWaitpoint(trx, runId) : null;
    if (!wp || wp.segment !== locked.segment) throw conflict(`Run ${runId} is not waiting for input (status ${locked.status}); a waitpoint resolves once`);
    const accepted = Object.keys(domainModule(wp.domain)?.resumeActions ?? {});
    if (answer.action && !accepted.includes(answer.action)) {
      throw invalidPayload(`action ${answer.action} is not accepted by this ${wp.domain} waitpoint${accepted.length ? `; use ${accepted.join(' or ')}` : ''}`, { accepted });
    }
    if (wp.kind === 'NEEDS_INPUT') {
      const choices = (wp.payload.choices ?? []) as Array<{ itemId: string }>;
      if (!answer.itemId) throw invalidPayload('itemId is required to answer a choice', { choices: choices.map((c) => c.itemId) });
      if (!choices.some((c) => c.itemId === answer.itemId)) throw invalidPayload(`itemId ${answer.itemId} is not one of the offered choices`, { choices: choices.map((c) => c.itemId) });
    }
    const action = answer.action ?? (wp.kind === 'NEEDS_INPUT' ? accepted[0] : undefined);
    // The client's free-form data never overrides the validated answer.
    const resolution = { ...(answer.data ?? {}), itemId: answer.itemId, action, approved: answer.approved };
    await resolveWaitpoint(trx, wp.id, resolution);
    const segment = locked.segment + 1;
    const plan = extendRoute(locked.route, wp.step_index, wp.domain, action, availableDomains());
    const routing = plan.extension ? { ...locked.routing, extensions: [...((locked.routing.extensions as unknown[]) ?? []), { segment, ...plan.extension }] } : locked.routing;
    const queued = (await queueNextSegment(trx, runId, movesInto('queued'), segment, plan.route, routing))!;
    emit('trace', { event: 'run.resumed', waitpointId: wp.id, kind: wp.kind, segment, itemId: answer.itemId ?? null, action: action ?? null, ...(plan.extension ? { extension: plan.extension } : {}) });
    return { wp, segment, route: plan.route, run: queued };
  });
  await enqueueOrLeaveToSweep(deps, runId, () => enqueueSegment(deps, runId, result.segment, result.route, result.wp.step_index, result.wp.id));
  return result.run;
}

/**
 * The run is committed in Postgres before its flow is enqueued. If Redis
 * cannot take the flow now, the run stays `queued` and the clock's stuck-run
 * sweep enqueues it (same deterministic job ids) within a minute: the client
 * still gets its runId, and nothing is lost.
 */
async function enqueueOrLeaveToSweep(deps: Deps, runId: string, enqueue: () => Promise<void>): Promise<void> {
  try {
    await enqueue();
  } catch (err) {
    deps.log.warn({ runId, err: (err as Error).message }, 'flow not enqueued; the stuck-run sweep will enqueue it');
  }
}
