import type { Deps } from '../../shared/deps.js';
import { conflict, invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import { openWaitpoint, type RunRow } from '../../shared/db/runs.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { OrchestratorRequest } from './schemas.js';
import { availableDomains, stepHandler } from '../steps.js';
import { domainModule, engineHooks } from '../module-registry.js';
import { refuseRepeatedAnswer } from './repeated-answer.js';
import { extendRoute } from './extend-route.js';
import type { RunInsert } from '../../shared/db/run-writes.js';
import type { WaitpointRow } from '../../shared/db/run-steps.js';
import { recordTurn } from '../../shared/db/conversations.js';
import { decideRoute, previousTurn } from './decide.js';
import { inRunTx } from './run-events.js';
import { enqueueResumed, resolveRunWaitpoint, type WaitpointDecision } from './waitpoint-resume.js';
import { insertAdmitted, startSubmitted } from './admission.js';
import type { HoldState } from '../../shared/db/admissions.js';
import { refuseWhenSaturated } from './backpressure.js';
import type { DomainModule, RunAnswer } from '../domain.js';
import { answerApproves, gateOfWaitpoint } from '../approval-gates.js';
import { assertScopes } from '../../shared/auth/scopes.js';

/**
 * Starts a run, or resumes the conversation's waiting run when the request
 * is a follow-up carrying `itemId`/`action`. Writes the run and its first
 * events in one transaction, then enqueues the flow (or holds the run while
 * its account has no place: admission.ts); returns the run row. Refused for
 * load before anything is written: 503 when a queue of its route is too deep
 * (backpressure.ts), 429 when its account's hold is full (admission.ts).
 * `runId` is given by a caller that must start a run at most once (a signal
 * match, a schedule firing: jobs/automation/start-run.ts): a second insert of
 * that id fails on the primary key and writes nothing.
 */
export async function submitRun(
  deps: Deps,
  principal: Principal,
  body: OrchestratorRequest,
  runId = newId('run'),
): Promise<RunRow & { hold?: HoldState | null }> {
  const { conversation, previous } = await previousTurn(deps, principal.accountId, body.conversationId);
  if ((body.itemId || body.action) && body.conversationId) {
    const lastRunId = conversation?.context?.lastRunId ?? conversation?.last_run_id;
    if (!lastRunId) throw conflict(`Conversation ${body.conversationId} has no run waiting for input`);
    return resumeRun(deps, principal, lastRunId, {
      itemId: body.itemId,
      action: body.action,
      data: body.metadata ?? {},
    });
  }
  const decision = await decideRoute(deps, { request: body.request, domainRoute: body.domainRoute, previous });
  const missing = decision.route.filter((d) => !stepHandler(d));
  if (missing.length > 0) {
    throw policyViolation(
      `Domain${missing.length > 1 ? 's' : ''} ${[...new Set(missing)].join(', ')} ` +
        `${missing.length > 1 ? 'are' : 'is'} not available yet; this service runs ` +
        `${availableDomains().join(', ')}`,
      { route: decision.route, missing, available: availableDomains() },
    );
  }
  if (body.taskId && !(await engineHooks().taskExists(deps.db, principal.accountId, body.taskId)))
    throw notFound(`Task ${body.taskId}`);
  // Checked last, after every refusal a retry cannot fix, and before anything is written.
  await refuseWhenSaturated(deps, decision.route);

  const { stream: _stream, request, conversationId, taskId, channel, ...rest } = body;
  const row: RunInsert = {
    id: runId,
    accountId: principal.accountId,
    conversationId: conversationId ?? null,
    taskId: taskId ?? null,
    request,
    input: rest,
    route: decision.route,
    routing: decision as unknown as Record<string, unknown>,
    channel: channel ?? 'api',
    submittedBy: principal.memberId ?? null,
    grantScopes: principal.scopes,
  };
  const created = {
    type: 'trace',
    data: {
      event: 'run.created',
      runId,
      route: decision.route,
      routing: { source: decision.source, followUp: decision.followUp, reason: decision.reason },
    },
  };
  // The run and its first event are one statement, which also takes the run's place among its account's runs in
  // flight or holds it (admission.ts); a conversation turn or a task move joins them in one transaction.
  // Not published: nobody can follow a run before its id is answered, and a follower reads this event from Postgres
  // first.
  const run =
    conversationId || taskId
      ? await deps.db.transaction(async (trx) => {
          const inserted = await insertAdmitted(trx, deps.config, principal.plan, row, created);
          if (conversationId) await recordTurn(trx, principal.accountId, conversationId, runId);
          if (taskId) await engineHooks().taskRunStarted(trx, principal.accountId, taskId, runId);
          return inserted;
        })
      : await insertAdmitted(deps.db, deps.config, principal.plan, row, created);
  await startSubmitted(deps, run);
  return run;
}

/**
 * Resolves the run's open waitpoint exactly once (a second resolve is 409)
 * and enqueues the next segment from the waiting step onwards. The answer's
 * action must be one the waiting domain accepts; an action that continues
 * into another domain (`buy` → pay) extends the route after the waiting
 * step, and the routing decision records it. A waitpoint its domain resolves
 * itself (a proxy mission: `proxyOutcome`) is handed to that domain.
 */
export async function resumeRun(deps: Deps, principal: Principal, runId: string, answer: RunAnswer): Promise<RunRow> {
  const open = await openWaitpoint(deps.db, runId);
  const mine = open?.account_id === principal.accountId ? open : null;
  await refuseRepeatedAnswer(deps.db, principal.accountId, runId, answer, mine);
  const own = domainAnswering(mine, answer.action);
  if (own) {
    assertScopes(principal, ['runs:write']);
    return own(deps, principal, runId, answer);
  }
  const result = await inRunTx(deps, runId, principal.accountId, (trx, emit) =>
    resolveRunWaitpoint(trx, emit, principal.accountId, runId, async (run, wp) => {
      if (answer.waitpointId && answer.waitpointId !== wp.id)
        throw conflict(`Run ${runId} no longer waits at ${answer.waitpointId}; it waits at ${wp.id}`, {
          waitpointId: wp.id,
        });
      await refuseRepeatedAnswer(trx, principal.accountId, runId, answer, wp);
      const module = domainModule(wp.domain);
      const decision = planAnswer(module, run, wp, answer);
      // Checked again under the lock: a waitpoint that came to rest since the look in domainAnswering is its domain's
      // to resolve.
      if (selfAnswer(module))
        throw conflict(
          `Run ${runId} now waits on a ${wp.domain} waitpoint, which resolves through its domain; answer again`,
        );
      if (wp.kind !== 'awaitingApproval') {
        assertScopes(principal, ['runs:write']);
        return decision;
      }
      // Every approval, whichever transport it came by, is decided here: who may approve, and the record of who did.
      const gate = gateOfWaitpoint(wp);
      const approval = await engineHooks().authorizeApproval(
        deps,
        trx,
        principal,
        {
          resourceType: 'run',
          resourceId: runId,
          submittedBy: run.submitted_by,
          gate,
          step: { domain: wp.domain, index: wp.step_index },
          details: { waitpointId: wp.id },
        },
        answerApproves(answer),
      );
      emit('trace', {
        event: approval.approved ? 'approval.granted' : 'approval.denied',
        gate,
        memberId: approval.approvedBy,
        waitpointId: wp.id,
      });
      return { ...decision, resolution: { ...decision.resolution, approvedBy: approval.approvedBy, gate } };
    }),
  );
  await enqueueResumed(deps, runId, result);
  return result.run;
}

/** The engine's own answer to a waitpoint: checked against what the waiting domain accepts and what it offered. */
function planAnswer(
  module: DomainModule | undefined,
  run: RunRow,
  wp: WaitpointRow,
  answer: RunAnswer,
): WaitpointDecision {
  const accepted = Object.keys(module?.resumeActions ?? {});
  if (answer.action && !accepted.includes(answer.action)) {
    throw invalidPayload(
      `action ${answer.action} is not accepted by this ${wp.domain} ` +
        `waitpoint${accepted.length ? `; use ${accepted.join(' or ')}` : ''}`,
      { accepted },
    );
  }
  if (wp.kind === 'NEEDS_INPUT') {
    const choices = (wp.payload.choices ?? []) as Array<{ itemId: string }>;
    if (!answer.itemId)
      throw invalidPayload('itemId is required to answer a choice', { choices: choices.map((c) => c.itemId) });
    if (!choices.some((c) => c.itemId === answer.itemId))
      throw invalidPayload(`itemId ${answer.itemId} is not one of the offered choices`, {
        choices: choices.map((c) => c.itemId),
      });
  }
  const action = answer.action ?? (wp.kind === 'NEEDS_INPUT' ? accepted[0] : undefined);
  const plan = extendRoute(run.route, wp.step_index, wp.domain, action, availableDomains());
  // The client's free-form data never overrides the validated answer.
  return {
    resolution: { ...(answer.data ?? {}), itemId: answer.itemId, action, approved: answer.approved },
    action,
    itemId: answer.itemId,
    route: plan.route,
    extension: plan.extension,
  };
}

const selfAnswer = (module: DomainModule | undefined) =>
  Object.values(module?.resumeActions ?? {}).find((a) => a.answer)?.answer;

/**
 * The domain that answers the run's open waitpoint itself, when there is
 * one and the answer's action is its own (or none). A look without a lock:
 * the domain decides again under the run's lock, and so does the engine.
 */
function domainAnswering(wp: WaitpointRow | null, action: string | undefined) {
  if (!wp) return undefined;
  const actions = domainModule(wp.domain)?.resumeActions ?? {};
  if (action) return Object.hasOwn(actions, action) ? actions[action]!.answer : undefined;
  return selfAnswer(domainModule(wp.domain));
}
