import type { Deps } from '../../shared/deps.js';
import { AppError, invalidPayload } from '../../shared/errors.js';
import type { StepHandler, StepInput, StepOutcome } from '../step.js';
import { requireRunEffect } from '../orchestrator/index.js';
import { enqueueAction } from './action-jobs.js';
import { checkAction, writeAction } from './actions-service.js';
import { getAction, type ActionRow } from './actions-repository.js';
import { chooseAction, type RestReason, type StepPlan } from './step-choice.js';
import { reportAction, stopRoute, waitForAction } from './step-report.js';
import { AWAITING_ACTION } from './run-resume.js';

/**
 * The bridge step performs one provider action a run asks for ("email the signed invoice to accounting@…", "post the
 * incident summary to #ops", "text +1… that the van arrives at 3pm", or a capability it names, `crm.create`). It
 * reads the request (step-logic.ts), picks the account's connector for the capability (step-choice.ts), runs the
 * preflight, the bridge policy and the outreach gate before anything is written (`checkAction`), writes the action
 * (its id derived from the run and the step, so a retried step finds it) and queues it on `bridge-actions`. Then it
 * waits for the action a bounded while (BRIDGE_STEP_WAIT_MS); one still under way rests the run at `awaitingAction`
 * until the action's end resumes it (run-resume.ts). The action's result and proof become the step's output and
 * evidence. When nothing can be done (no action understood, no recipient, no connector, a refusal), the run rests
 * with the reason as an open question; a route that goes on after bridge does not go on without it.
 */
export const bridgeStep: StepHandler = async (input, deps) => {
  if (input.resume?.kind === AWAITING_ACTION) {
    const actionId = String(input.resume.data?.actionId ?? '');
    const row = await getAction(deps.db, input.accountId, actionId);
    if (!row) throw invalidPayload(`bridge action ${actionId} of this run is gone`);
    return follow(input, deps, row);
  }
  const id = stepActionId(input);
  const made = await getAction(deps.db, input.accountId, id);
  if (made) {
    // Written by an earlier attempt of this step: queue it again only if it never got to run (an enqueue adds once).
    if (made.status === 'queued' && made.attempts === 0) await enqueueAction(deps, made);
    return follow(input, deps, made);
  }
  const plan = await chooseAction(deps, input);
  if ('rest' in plan) return rest(input, deps, plan.rest);
  // The run acts within its grant: without bridge:write the step fails naming it, before any check or call.
  const principal = await requireRunEffect(deps, input, 'bridge.action');
  await input.emit(`Checking ${plan.capability} through connector ${plan.connector.connector_id}`, {
    capability: plan.capability,
    connectorId: plan.connector.connector_id,
  });
  let row: ActionRow;
  try {
    const checked = await checkAction(deps, principal, {
      connectorId: plan.connector.connector_id,
      capability: plan.capability,
      input: { ...plan.input, ...(plan.outreach ? { outreach: plan.outreach } : {}) },
      runId: input.runId,
    });
    row = await writeAction(deps.db, input.accountId, checked, `run:${input.runId}`, id);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    return rest(input, deps, refusal(plan, err));
  }
  await enqueueAction(deps, row);
  return follow(input, deps, row, plan);
};

/** The action of this step of this run: one per step, whatever retries the step job gets. */
function stepActionId(input: StepInput): string {
  return `bac_${input.runId.replace(/^run_/, '')}_${input.index}`;
}

/** Why an action was refused before it was written: the preflight's, the policy's or the outreach gate's words. */
function refusal(plan: StepPlan, err: AppError): RestReason {
  const details = (err.details ?? {}) as Record<string, unknown>;
  const outreach = details.outreach as { decision?: string } | undefined;
  return {
    reason: outreach ? (outreach.decision === 'defer' ? 'outreachDeferred' : 'outreachRefused') : 'refused',
    message: err.message,
    capability: plan.capability,
    connectorId: plan.connector.connector_id,
    recipient: plan.recipient?.value ?? null,
    error: err.code,
    details,
  };
}

/**
 * Nothing was sent: the run rests with the reason as an open question. A request the step did not read as an action
 * (`notUnderstood`: setting up a connector is done through its routes) lets the route go on; any other reason stops
 * a route that goes on after bridge, naming it.
 */
async function rest(input: StepInput, deps: Deps, why: RestReason): Promise<StepOutcome> {
  if (why.reason !== 'notUnderstood') await stopRoute(input, deps, `nothing was sent: ${why.message}`);
  return {
    output: { performed: false, ...why },
    evidence: [],
    conversation: [`Nothing was sent: ${why.message}`],
    openQuestions: [`Bridge: ${why.message}`],
  };
}

/**
 * Waits for the action (BRIDGE_STEP_WAIT_MS); settled, it is reported, else the run rests at `awaitingAction` until
 * the action's end resumes it.
 */
async function follow(input: StepInput, deps: Deps, row: ActionRow, plan?: StepPlan): Promise<StepOutcome> {
  const settled = await waitForAction(deps, row, input.signal);
  if (settled) return reportAction(input, deps, settled, plan);
  const now = (await getAction(deps.db, input.accountId, row.id)) ?? row;
  const where = now.status === 'awaitingClient' ? "the client's adapter" : 'the provider';
  const waiting = `bridge action ${now.id} (${now.capability} through ${now.connector_id}) is ${now.status}`;
  return {
    output: {
      performed: true,
      actionId: now.id,
      connectorId: now.connector_id,
      capability: now.capability,
      status: now.status,
      attempts: now.attempts,
      nextAttemptAt: now.next_attempt_at?.toISOString() ?? null,
      actionRoute: `/v1/bridge/actions/${now.id}`,
    },
    evidence: [],
    conversation: [`Sent ${now.capability} through ${now.connector_id}; waiting for ${where} (${now.status}).`],
    openQuestions: [`Waiting for ${waiting}: the run goes on when it ends`],
    suspend: {
      kind: AWAITING_ACTION,
      payload: { actionId: now.id, connectorId: now.connector_id, capability: now.capability, status: now.status },
    },
  };
}
