import type { SegmentEnd, SegmentEndState } from '../../shared/db/segment-ends.js';
import { newId } from '../../shared/ids.js';
import type { EvidenceItem } from '../step.js';
import { domainModule } from '../module-registry.js';
import { assessProof, cite } from './proof.js';
import { assembleResult } from './result.js';
import { domainFinalStatus, isTerminal, movesInto, runEventType } from './run-state.js';

/**
 * How a segment ends, decided from what the finalizer read (no I/O): where
 * the run rests, its response and proof card, the run events and the
 * outbox event. A step that gave up for good (an outage outlasted its
 * retries) does not hold the segment: the run fails here, naming it.
 */
export function planSegmentEnd({
  run,
  steps,
  waitpoint,
}: SegmentEndState): SegmentEnd & { results: Record<string, unknown> } {
  const runId = run.id;
  const segment = run.segment;
  const events: SegmentEnd['events'] = [];
  let error = run.error;
  let over = isTerminal(run.status);
  const unfinished =
    !over &&
    !waitpoint &&
    steps.find((s) => s.segment === segment && s.idx === run.route.length - 1)?.status !== 'completed';
  if (unfinished) {
    const stuck =
      steps.filter((s) => s.segment === segment && s.status !== 'completed').sort((a, b) => a.idx - b.idx)[0]?.domain ??
      run.route[run.route.length - 1];
    error = `the ${stuck} step did not complete`;
    over = true;
    events.push({ type: 'trace', data: { event: 'run.failed', reason: error } });
  }
  const completed = steps.filter((s) => s.status === 'completed');
  // A domain may end the run with a final status of its own (delivery: delivered | blocked); the last step that asked
  // for one wins.
  const declared = completed
    .map((s) => domainFinalStatus(domainModule(s.domain), s.extra?.finalStatus))
    .filter(Boolean)
    .pop();
  const status = unfinished ? 'failed' : over ? run.status : waitpoint ? waitpoint.kind : (declared ?? 'ready');
  const body = assembleResult(run.route, steps);

  let proofCard: SegmentEnd['proofCard'] = null;
  if (!over) {
    const latest = [...new Map(completed.map((s) => [s.domain, s])).values()];
    const assessment = assessProof(
      latest.map((s) => ({
        domain: s.domain,
        evidence: (s.evidence ?? []) as EvidenceItem[],
        openQuestions: s.extra?.openQuestions ?? [],
        rejected: s.extra?.rejected ?? [],
      })),
      Boolean(waitpoint),
    );
    const id = newId('pc');
    const decisionId = newId('dec');
    const card = {
      cardId: id,
      kind: 'proofCard',
      evidenceStatus: assessment.evidenceStatus,
      confidence: assessment.confidence,
      openQuestions: assessment.openQuestions,
      recommendedRestraint: assessment.recommendedRestraint,
      cite: cite.proofCard(id),
      citeRef: cite.decisionLog(decisionId),
      runId,
      createdAt: new Date().toISOString(),
    };
    const selected = latest.map((s) => s.output?.selected).find(Boolean) ?? null;
    const decision = {
      decisionId,
      route: run.route,
      status,
      selectedOption: selected ?? { route: run.route, status },
      rejectedPaths: latest.flatMap((s) => (s.extra?.rejected ?? []).map((r) => ({ domain: s.domain, ...r }))),
      evidence: latest.flatMap((s) => ((s.evidence ?? []) as EvidenceItem[]).map((e) => ({ domain: s.domain, ...e }))),
      counts: assessment.counts,
    };
    proofCard = { id, decisionId, card, decision };
  }
  const results: Record<string, unknown> = {
    ok: true,
    runId,
    status,
    ...body,
    proofCard: proofCard?.card ?? null,
    ...(error ? { error } : {}),
  };
  events.push({ type: 'final', data: { segment, result: results } });
  return {
    results,
    runId,
    segment,
    eventSeq: run.event_seq,
    proofCard,
    events,
    error,
    // A run a failure or a cancel already ended keeps its status; only its result is added.
    from: over && !unfinished ? [run.status] : movesInto(status),
    status,
    finished: isTerminal(status),
    outbox: {
      id: newId('evt'),
      accountId: run.account_id,
      type: runEventType(status),
      subject: runId,
      payload: { runId, status, route: run.route, proofCardId: proofCard?.id ?? null, ...(error ? { error } : {}) },
    },
  };
}
