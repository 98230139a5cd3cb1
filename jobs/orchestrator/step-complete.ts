// Completing a step: its outcome checked, then the step row, its events and any waitpoint written together.
import type { Deps } from '../../shared/deps.js';
import { invalidPayload } from '../../shared/errors.js';
import { waitpointTtlSeconds } from './waitpoint-expiry.js';
import { completeStepGuard, completeStepRow, insertWaitpoint, type StepFields } from '../../shared/db/run-steps.js';
import { newId } from '../../shared/ids.js';
import type { RunRow } from '../../shared/db/runs.js';
import { engineHooks } from '../module-registry.js';
import {
  StepConversation,
  StepEvidence,
  StepExtra,
  StepOutput,
  type StepJobData,
} from '../../shared/schemas/run-data.js';
import { readAs } from '../../shared/validation.js';
import type { StepOutcome } from '../step.js';
import { emitRunEvents, inRunTx } from './run-events.js';
import { canRestAt } from './run-state.js';

/** Stores a domain's step outcome once: the row and its events, or with a waitpoint when the step suspends. */
export async function completeStep(
  deps: Deps,
  data: StepJobData,
  run: Pick<RunRow, 'account_id' | 'submitted_by'>,
  stepId: string,
  outcome: StepOutcome,
  held: Array<{ type: string; data: Record<string, unknown> }>,
) {
  const accountId = run.account_id;
  // What a domain hands back is checked before it is stored, so finalize and the proof card read what their schemas
  // say.
  const what = `${data.domain} step outcome`;
  if (outcome.suspend && !canRestAt(data.domain, outcome.suspend.kind))
    throw invalidPayload(
      `${what} asks to rest at ${outcome.suspend.kind}, which is neither a core wait kind nor one its module declares`,
    );
  const fields: StepFields = {
    output: JSON.stringify(readAs(StepOutput, outcome.output, `${what} (output)`)),
    evidence: JSON.stringify(readAs(StepEvidence, outcome.evidence, `${what} (evidence)`)),
    conversation: JSON.stringify(readAs(StepConversation, outcome.conversation, `${what} (conversation)`)),
    extra: JSON.stringify(
      readAs(
        StepExtra,
        {
          openQuestions: outcome.openQuestions ?? [],
          rejected: outcome.rejected ?? [],
          ...(outcome.finalStatus ? { finalStatus: outcome.finalStatus } : {}),
        },
        `${what} (doubts)`,
      ),
    ),
  };
  const events = [
    ...held,
    ...outcome.conversation.map((line) => ({
      type: 'conversation',
      data: { domain: data.domain, line: `[${data.domain}] ${line}` },
    })),
    {
      type: 'handoff',
      data: {
        phase: 'complete',
        name: data.domain,
        status: outcome.suspend ? outcome.suspend.kind : 'completed',
        message: `${data.domain} finished`,
        stepId,
      },
    },
  ];
  if (!outcome.suspend) {
    // The common case in one statement: the step row and its events commit together, and only once.
    const written = await emitRunEvents(deps, data.runId, accountId, events, completeStepGuard(stepId, fields));
    return {
      domain: data.domain,
      status: 'completed',
      ...(written.length === 0 ? { replayed: true } : { suspended: null }),
    };
  }
  let notified = 0;
  const done = await inRunTx(deps, data.runId, accountId, async (trx, emit) => {
    if (!(await completeStepRow(trx, stepId, fields)))
      return { domain: data.domain, status: 'completed', replayed: true };
    for (const e of events) emit(e.type, e.data);
    const id = newId('wait');
    const ttl = waitpointTtlSeconds(deps.config, outcome.suspend!.kind);
    await insertWaitpoint(trx, {
      id,
      runId: data.runId,
      accountId,
      kind: outcome.suspend!.kind,
      segment: data.segment,
      index: data.index,
      domain: data.domain,
      payload: outcome.suspend!.payload,
      ttlSeconds: ttl,
    });
    // The people it waits for hear of it (the inbox's outbox, in this transaction; sent after commit).
    notified = await engineHooks().inboxNotice(trx, {
      accountId,
      event: 'created',
      waitpoint: {
        id,
        kind: outcome.suspend!.kind,
        domain: data.domain,
        runId: data.runId,
        payload: outcome.suspend!.payload,
        expiresAt: ttl ? new Date(Date.now() + ttl * 1000).toISOString() : null,
      },
      // The submitter never changes: the row the step began with (beginStep) names it.
      submittedBy: run.submitted_by,
    });
    emit('trace', { event: 'waitpoint.created', waitpointId: id, kind: outcome.suspend!.kind, domain: data.domain });
    return { domain: data.domain, status: 'completed', suspended: outcome.suspend!.kind };
  });
  if (notified > 0) await engineHooks().wakeInbox(deps);
  return done;
}
