import type { Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { getRunById, openWaitpoint, stepsOf } from '../../shared/db/runs.js';
import { insertProofCard, lockForFinalize, storeEndedRunResult } from '../../shared/db/run-writes.js';
import { setConversationContext } from '../../shared/db/conversations.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { transitionTaskForRun } from '../tasks/service.js';
import { newId } from '../../shared/ids.js';
import type { EvidenceItem } from '../step.js';
import { FinalizeJobData } from '../../shared/schemas/run-data.js';
import { readJob } from './read-job.js';
import { assessProof, cite } from './proof.js';
import { assembleResult } from './result.js';
import { inRunTx } from './run-events.js';
import { wakeDispatcher } from '../events/wake.js';
import { domainModule } from '../domains.js';
import { domainFinalStatus, FINAL_OUTCOMES, isTerminal, moveRun, runEventType } from './run-state.js';
import { failRun } from './run-fail.js';

/**
 * Root of every segment's flow: decides where the run rests, builds the
 * proof card and the response, and writes the run, the task, the outbox
 * event and the `final` event in one transaction.
 */
export async function processFinalize(job: Job<FinalizeJobData>, deps: Deps): Promise<unknown> {
  const { runId, segment } = readJob(FinalizeJobData, job.data, 'finalize job data');
  // Three independent reads, in parallel: one round trip's wait instead of three.
  const [run, steps, waitpoint] = await Promise.all([getRunById(deps.db, runId), stepsOf(deps.db, runId), openWaitpoint(deps.db, runId)]);
  if (!run || run.segment !== segment) return { skipped: true };
  // A step that gave up for good (an outage outlasted its retries) does not hold finalize: the run fails here, naming it, and ends.
  const unfinished = !isTerminal(run.status) && !waitpoint && steps.find((s) => s.segment === segment && s.idx === run.route.length - 1)?.status !== 'completed';
  if (unfinished) {
    const stuck = steps.filter((s) => s.segment === segment && s.status !== 'completed').sort((a, b) => a.idx - b.idx)[0]?.domain ?? run.route[run.route.length - 1];
    await failRun(deps, runId, run.account_id, `the ${stuck} step did not complete`);
    return processFinalize(job, deps);
  }
  const completed = steps.filter((s) => s.status === 'completed');
  let over = run.status === 'failed' || run.status === 'canceled';
  // A domain may end the run with a final status of its own (delivery: delivered | blocked); the last step that asked for one wins.
  const declared = completed.map((s) => domainFinalStatus(domainModule(s.domain), s.extra?.finalStatus)).filter(Boolean).pop();
  let status = over ? run.status : waitpoint ? waitpoint.kind : declared ?? 'ready';
  const body = assembleResult(run.route, steps);

  let proofCard: Record<string, unknown> | null = null;
  let proofRow: Record<string, unknown> | null = null;
  if (!over) {
    const latest = new Map(completed.map((s) => [s.domain, s]));
    const assessment = assessProof(
      [...latest.values()].map((s) => ({ domain: s.domain, evidence: (s.evidence ?? []) as EvidenceItem[], openQuestions: s.extra?.openQuestions ?? [], rejected: s.extra?.rejected ?? [] })),
      Boolean(waitpoint),
    );
    const cardId = newId('pc');
    const decisionId = newId('dec');
    proofCard = {
      cardId, kind: 'proofCard', evidenceStatus: assessment.evidenceStatus, confidence: assessment.confidence, openQuestions: assessment.openQuestions,
      recommendedRestraint: assessment.recommendedRestraint, cite: cite.proofCard(cardId), citeRef: cite.decisionLog(decisionId), runId,
    };
    const selected = [...latest.values()].map((s) => s.output?.selected).find(Boolean) ?? null;
    const decision = {
      decisionId, route: run.route, status, selectedOption: selected ?? { route: run.route, status },
      rejectedPaths: [...latest.values()].flatMap((s) => (s.extra?.rejected ?? []).map((r) => ({ domain: s.domain, ...r }))),
      evidence: [...latest.values()].flatMap((s) => ((s.evidence ?? []) as EvidenceItem[]).map((e) => ({ domain: s.domain, ...e }))),
      counts: assessment.counts,
    };
    proofCard.createdAt = new Date().toISOString();
    proofRow = { id: cardId, account_id: run.account_id, run_id: runId, decision_id: decisionId, card: JSON.stringify(proofCard), decision: JSON.stringify(decision) };
  }

  const response: Record<string, unknown> = { ok: true, runId, status, ...body, proofCard, ...(run.error ? { error: run.error } : {}) };
  const fannedOut = await inRunTx(deps, runId, run.account_id, async (trx, emit) => {
    // Two finalizers of one segment (the flow's and a sweep's) serialise on the run row; the second finds the final and stops.
    const locked = await lockForFinalize(trx, runId, segment);
    // A resume moved the run to a newer segment, or this segment already ended: nothing of this finalizer may land.
    if (locked.finalized || locked.segment !== segment) return 0;
    // Canceled or failed while this finalizer was reading: that is how the segment ends.
    if (!over && (locked.status === 'failed' || locked.status === 'canceled')) {
      over = true;
      status = locked.status;
      Object.assign(response, { status, proofCard: null });
      proofRow = null;
    }
    if (proofRow) await insertProofCard(trx, proofRow);
    // failed/canceled were set by the move that ended the run; here only the result is added.
    if (over) await storeEndedRunResult(trx, runId, response);
    else if (!(await moveRun(trx, runId, status, { results: JSON.stringify(response), proof_card_id: proofCard?.cardId ?? null }))) return 0;
    if (run.conversation_id) {
      await setConversationContext(trx, run.account_id, run.conversation_id, { route: run.route, status, waiting: waitpoint?.kind ?? null, lastRunId: runId });
    }
    // Tasks know the core statuses; a domain's final status counts as the success or failure it declares.
    const outcome = FINAL_OUTCOMES[status];
    const taskStatus = outcome === 'succeeded' ? 'ready' : outcome === 'failed' ? 'failed' : status;
    const taskDeliveries = run.task_id ? await transitionTaskForRun(trx, run.account_id, run.task_id, taskStatus, { runId, results: body.results }) : 0;
    const type = runEventType(status);
    const { deliveries } = await recordEvent(trx, { accountId: run.account_id, type, subject: runId, payload: { runId, status, route: run.route, proofCardId: proofRow ? (proofCard?.cardId ?? null) : null, ...(run.error ? { error: run.error } : {}) } });
    emit('final', { segment, result: response });
    return deliveries + taskDeliveries;
  });
  if (fannedOut > 0) await wakeDispatcher(deps);
  return { status };
}

/** A canceled run that was resting at a waitpoint has no flow to finalize it; this writes its final state. */
export async function finalizeCanceled(deps: Deps, runId: string): Promise<void> {
  const run = await getRunById(deps.db, runId);
  if (!run) return;
  await processFinalize({ data: { runId, segment: run.segment } } as Job<FinalizeJobData>, deps);
}
