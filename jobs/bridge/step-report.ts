import type { Deps } from '../../shared/deps.js';
import { getRunById } from '../../shared/db/runs.js';
import { policyViolation } from '../../shared/errors.js';
import type { EvidenceItem, StepInput, StepOutcome } from '../step.js';
import { claimRunRead, getAction, type ActionRow } from './actions-repository.js';
import { RUN_SETTLED_STATUSES } from './machines.js';
import type { StepPlan } from './step-choice.js';

const settled = (status: string) => (RUN_SETTLED_STATUSES as readonly string[]).includes(status);

/**
 * Waits for the action to settle for the run (it ended, or its provider took it), at most BRIDGE_STEP_WAIT_MS,
 * reading its row with a growing pause (50 ms to 500 ms); null when it is still under way then. A settled action is
 * marked read by this run (a resume of the run then finds nothing to do).
 */
export async function waitForAction(deps: Deps, row: ActionRow, signal: AbortSignal): Promise<ActionRow | null> {
  const until = Date.now() + deps.config.BRIDGE_STEP_WAIT_MS;
  let pause = 50;
  for (let now = row; ;) {
    if (settled(now.status)) {
      await claimRunRead(deps.db, now.id);
      return now;
    }
    if (Date.now() >= until || signal.aborted) return null;
    await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, until - Date.now()))));
    pause = Math.min(500, pause * 2);
    now = (await getAction(deps.db, row.account_id, row.id)) ?? now;
  }
}

/** A failure the route must not go past: the run fails naming it when another step follows this one. */
export async function stopRoute(input: StepInput, deps: Deps, message: string): Promise<void> {
  const run = await getRunById(deps.db, input.runId);
  const next = run?.route[input.index + 1];
  if (next) throw policyViolation(`${message}; the run does not go on into ${next}`);
}

/** How the run tells what happened to its action, by status. */
function said(row: ActionRow): { ok: boolean; line: string } {
  const via = `${row.capability} through connector ${row.connector_id}`;
  const ref = row.provider_ref ? ` (provider reference ${row.provider_ref})` : '';
  const error = (row.error ?? {}) as { code?: string; message?: string };
  const why = `${error.code ? `${error.code}: ` : ''}${error.message ?? 'no reason given'}`;
  switch (row.status) {
    case 'succeeded':
      return { ok: true, line: `Sent ${via}${ref}; the provider took it.` };
    case 'delivered':
      return { ok: true, line: `Sent ${via}${ref}; the provider reports it delivered.` };
    case 'awaitingProvider':
      return {
        ok: true,
        line: `Sent ${via}${ref}; the provider accepted it and reports the outcome by callback (the action shows it).`,
      };
    case 'timedOut':
      return { ok: false, line: `${via} timed out: ${why}` };
    default:
      return { ok: false, line: `${via} failed after ${row.attempts} attempt(s): ${why}` };
  }
}

/**
 * The step's output and evidence from a settled action: what was sent to whom, the provider's answer and reference,
 * and the proof of the call (the request's and the answer's hashes), cited by the action. An action that failed or
 * timed out rests the run with the reason as an open question, and stops a route that goes on after bridge.
 */
export async function reportAction(
  input: StepInput,
  deps: Deps,
  row: ActionRow,
  plan?: StepPlan,
): Promise<StepOutcome> {
  const { ok, line } = said(row);
  if (!ok) await stopRoute(input, deps, `bridge action ${row.id}: ${line}`);
  const proof = (row.proof ?? {}) as Record<string, unknown>;
  const hashed = typeof proof.requestSha256 === 'string';
  const source = `awp:bridgeAction:${row.id}#proof`;
  const evidence: EvidenceItem[] = [
    {
      claim:
        `${line}` +
        (hashed
          ? ` Request sha256 ${String(proof.requestSha256).slice(0, 16)}…` +
            (typeof proof.responseSha256 === 'string' ? `, answer sha256 ${proof.responseSha256.slice(0, 16)}…` : '')
          : ''),
      source,
      sourceBound: hashed,
    },
  ];
  const output = {
    performed: true,
    ok,
    actionId: row.id,
    connectorId: row.connector_id,
    capability: row.capability,
    status: row.status,
    recipient: plan?.recipient?.value ?? recipientOf(row.input),
    message: plan?.message ?? (typeof row.input.text === 'string' ? row.input.text : null),
    providerRef: row.provider_ref,
    attempts: row.attempts,
    response: row.response,
    proof: row.proof,
    request: row.request_summary,
    error: row.error,
    actionRoute: `/v1/bridge/actions/${row.id}`,
  };
  return {
    output,
    evidence,
    conversation: [line],
    ...(ok ? {} : { openQuestions: [`Bridge: ${line} Run it again with POST /v1/bridge/actions/${row.id}/run?`] }),
    ...(plan?.rejected.length ? { rejected: plan.rejected } : {}),
  };
}

/** Whom a written action goes to, read back from its input (a resumed step has no plan). */
function recipientOf(input: Record<string, unknown>): string | null {
  for (const key of ['to', 'channel']) if (typeof input[key] === 'string') return input[key] as string;
  return null;
}
