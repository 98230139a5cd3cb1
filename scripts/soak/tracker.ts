/**
 * What the load driver learned as it went: the runs it was given an id for,
 * the cancels answered 200, the waiting runs it may answer, how each action
 * came out, and what it found wrong in an answer (a stream with a gap, a
 * benchmark digest that does not prove its steps, a duplicate signal that
 * matched again).
 */
export interface WaitingRun {
  runId: string;
  status: string;
  /** The answer that left it waiting (its results name the choice, the mission or the payment). */
  results: Record<string, any>;
}

export class Tracker {
  readonly accepted = new Set<string>();
  readonly canceled = new Set<string>();
  readonly waiting: WaitingRun[] = [];
  readonly outcomes = new Map<string, number>();
  readonly problems: string[] = [];
  readonly signalIds: string[] = [];
  streams = { followed: 0, cut: 0, unanswered: 0 };
  digests = { checked: 0 };

  count(what: string): void {
    this.outcomes.set(what, (this.outcomes.get(what) ?? 0) + 1);
  }

  problem(what: string): void {
    if (this.problems.length < 500) this.problems.push(what);
  }

  /** Records a run id from an answer, and a waiting run as one the load may answer later. */
  accept(answer: { runId?: string; status?: string; results?: Record<string, any> } | null): void {
    if (!answer?.runId) return;
    this.accepted.add(answer.runId);
    if (answer.status && ['NEEDS_INPUT', 'awaitingProxy', 'awaitingApproval'].includes(answer.status))
      this.waiting.push({ runId: answer.runId, status: answer.status, results: answer.results ?? {} });
  }

  /** A waiting run to answer or cancel, oldest first; null when none. */
  takeWaiting(): WaitingRun | null {
    return this.waiting.shift() ?? null;
  }
}
