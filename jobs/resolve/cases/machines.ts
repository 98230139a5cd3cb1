import type { ActionStatus, CaseStatus, DeadlineStatus } from './schemas.js';
import { defineMachine } from '../../state-machine.js';

/**
 * A case's statuses: `open` when created, worked on (`investigating`), waiting
 * on someone outside (`awaitingParty`, and back), then `resolved` or
 * `closed`. A resolved case may be reopened (open, investigating) or closed;
 * `closed` is final.
 */
export const CASES = defineMachine({
  open: ['investigating', 'awaitingParty', 'resolved', 'closed'],
  investigating: ['awaitingParty', 'resolved', 'closed'],
  awaitingParty: ['investigating', 'resolved', 'closed'],
  resolved: ['open', 'investigating', 'closed'],
  closed: [],
} satisfies Record<CaseStatus, CaseStatus[]>);

/**
 * A deadline is `open` until it is `met`, `waived`, or found `missed` by a
 * review (the route's or the clock's). A missed deadline may still be met
 * late or waived; `met` and `waived` are final.
 */
export const DEADLINES = defineMachine({
  open: ['met', 'missed', 'waived'],
  met: [],
  missed: ['met', 'waived'],
  waived: [],
} satisfies Record<DeadlineStatus, DeadlineStatus[]>);

/** An action item moves freely between open, inProgress and blocked until it is `done` or `canceled` (final). */
export const ACTIONS = defineMachine({
  open: ['inProgress', 'blocked', 'done', 'canceled'],
  inProgress: ['open', 'blocked', 'done', 'canceled'],
  blocked: ['open', 'inProgress', 'done', 'canceled'],
  done: [],
  canceled: [],
} satisfies Record<ActionStatus, ActionStatus[]>);

/** Action items still to do: a case fetch embeds these. */
export const OPEN_ACTION_STATUSES = ACTIONS.statuses.filter((s) => !ACTIONS.isTerminal(s));
