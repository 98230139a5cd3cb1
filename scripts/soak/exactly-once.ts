/**
 * The exactly-once checks of the soak, pure like logic.ts: over rows read
 * from Postgres (runs, their events, the delivery ledger) and what the load
 * driver and the webhook receiver saw. test/unit/soak-logic.test.ts feeds
 * them sample data.
 */

/** Whether an event type matches a subscription's `events` (exact, `prefix.*` or `*`). */
export function matchesEvents(type: string, patterns: string[]): boolean {
  return patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}

/** A run as Postgres holds it after the drain. */
export interface RunFacts {
  id: string;
  status: string;
  segment: number;
}

/** Counts read from run_events and events, keyed as named. */
export interface RunEventCounts {
  /** `final` events per `${runId}:${segment}`. */
  finals: Map<string, number>;
  /** `handoff` complete events per step id (`{runId}.{segment}.{index}.{domain}`). */
  stepCompletions: Map<string, number>;
  /** Outbox `run.completed|failed|canceled` events per run id. */
  terminalEvents: Map<string, number>;
}

export interface RunCheck {
  runs: number;
  stranded: string[];
  missing: string[];
  withoutFinal: string[];
  duplicateFinals: string[];
  duplicateSteps: string[];
  terminalEventNotOnce: string[];
  cancelNotCanceled: string[];
}

/**
 * Every accepted run at rest exactly once: each run the driver was given an
 * id for exists; none is still queued or running; its current segment has a
 * `final`; no segment has two, no step completed twice; a run at a final
 * status has exactly one terminal `run.*` event and a waiting one none; and a
 * run whose cancel was answered 200 ended canceled.
 */
export function checkRuns(
  runs: RunFacts[],
  counts: RunEventCounts,
  seen: { accepted: Iterable<string>; canceled: Iterable<string> },
  statuses: { resting: string[]; terminal: string[] },
): RunCheck {
  const byId = new Map(runs.map((r) => [r.id, r]));
  const terminal = new Set(statuses.terminal);
  const resting = new Set(statuses.resting);
  const over = (m: Map<string, number>) => [...m.entries()].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`);
  return {
    runs: runs.length,
    stranded: runs.filter((r) => !resting.has(r.status)).map((r) => `${r.id} (${r.status})`),
    missing: [...seen.accepted].filter((id) => !byId.has(id)),
    withoutFinal: runs
      .filter((r) => resting.has(r.status) && !counts.finals.get(`${r.id}:${r.segment}`))
      .map((r) => `${r.id} (${r.status}, segment ${r.segment})`),
    duplicateFinals: over(counts.finals),
    duplicateSteps: over(counts.stepCompletions),
    terminalEventNotOnce: runs
      .filter((r) => (counts.terminalEvents.get(r.id) ?? 0) !== (terminal.has(r.status) ? 1 : 0))
      .map((r) => `${r.id} (${r.status}: ${counts.terminalEvents.get(r.id) ?? 0})`),
    cancelNotCanceled: [...seen.canceled]
      .filter((id) => byId.get(id)?.status !== 'canceled')
      .map((id) => `${id} (${byId.get(id)?.status ?? 'missing'})`),
  };
}

/** One attempt of the delivery ledger. */
export interface Attempt {
  id: string;
  rootId: string;
  parentId: string | null;
  attempt: number;
  status: string;
  eventId: string;
  subscriptionId: string;
}

export type ChainOutcome = 'delivered' | 'deadLettered' | 'pending' | 'broken';

/**
 * What became of one event at one subscription, from its attempts: delivered
 * (exactly one attempt completed), dead-lettered (the last of `maxAttempts`
 * failed, none completed), pending (an attempt still queued or claimed, or a
 * retry not yet made), or broken (two completions, more attempts than allowed,
 * a failed attempt short of the cap with no retry after it, a lineage gap).
 */
export function chainOutcome(chain: Attempt[], maxAttempts: number): { outcome: ChainOutcome; why?: string } {
  const sorted = [...chain].sort((a, b) => a.attempt - b.attempt);
  const completed = sorted.filter((a) => a.status === 'completed').length;
  const last = sorted.at(-1)!;
  if (completed > 1) return { outcome: 'broken', why: `${completed} completed attempts` };
  if (last.attempt > maxAttempts) return { outcome: 'broken', why: `attempt ${last.attempt} > ${maxAttempts}` };
  if (sorted.some((a, i) => a.attempt !== i + 1)) return { outcome: 'broken', why: 'attempt numbers have a gap' };
  if (completed === 1)
    return last.status === 'completed'
      ? { outcome: 'delivered' }
      : { outcome: 'broken', why: 'attempts after a completion' };
  if (last.status === 'queued' || last.status === 'claimed') return { outcome: 'pending' };
  if (last.status === 'failed' && last.attempt === maxAttempts) return { outcome: 'deadLettered' };
  return { outcome: 'broken', why: `last attempt ${last.attempt} is ${last.status} with no retry` };
}

export interface DeliveryCheck {
  subscription: string;
  events: number;
  delivered: number;
  deadLettered: number;
  pending: number;
  problems: string[];
}

/**
 * Every event a subscription matches has one chain of attempts, which ended
 * delivered or dead-lettered; and the receiver agrees: it answered 2xx to
 * the chain's `webhook-id` (its root id) exactly once when the ledger says
 * delivered, and never when it says dead-lettered.
 */
export function checkDeliveries(
  sub: { id: string; events: string[] },
  events: Array<{ id: string; type: string }>,
  attempts: Attempt[],
  acknowledged: Map<string, number>,
  maxAttempts: number,
): DeliveryCheck {
  const mine = attempts.filter((a) => a.subscriptionId === sub.id);
  const chains = new Map<string, Attempt[]>();
  for (const a of mine) chains.set(a.rootId, [...(chains.get(a.rootId) ?? []), a]);
  const roots = new Map<string, string[]>();
  for (const a of mine.filter((x) => x.parentId === null))
    roots.set(a.eventId, [...(roots.get(a.eventId) ?? []), a.id]);
  const out: DeliveryCheck = {
    subscription: sub.id,
    events: 0,
    delivered: 0,
    deadLettered: 0,
    pending: 0,
    problems: [],
  };
  for (const e of events.filter((x) => matchesEvents(x.type, sub.events))) {
    out.events++;
    const rootIds = roots.get(e.id) ?? [];
    if (rootIds.length !== 1) {
      out.problems.push(`event ${e.id} (${e.type}) has ${rootIds.length} delivery chains`);
      continue;
    }
    const { outcome, why } = chainOutcome(chains.get(rootIds[0]!) ?? [], maxAttempts);
    const acks = acknowledged.get(rootIds[0]!) ?? 0;
    if (outcome === 'broken') out.problems.push(`event ${e.id}: ${why}`);
    else out[outcome]++;
    if (outcome === 'delivered' && acks !== 1)
      out.problems.push(`event ${e.id}: delivered, receiver acknowledged ${acks}× (webhook-id ${rootIds[0]})`);
    if (outcome !== 'delivered' && acks > 0) out.problems.push(`event ${e.id}: ${outcome}, yet acknowledged ${acks}×`);
  }
  return out;
}
