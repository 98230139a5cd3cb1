import { defineMachine } from '../state-machine.js';

/**
 * Task statuses and the moves between them. `completed`, `failed` and
 * `canceled` have none: they are the terminal statuses.
 */
export const TASKS = defineMachine({
  open: ['running', 'completed', 'failed', 'canceled'],
  running: ['awaitingInput', 'awaitingProxy', 'awaitingApproval', 'completed', 'failed', 'canceled'],
  awaitingInput: ['running', 'completed', 'failed', 'canceled'],
  awaitingProxy: ['running', 'completed', 'failed', 'canceled'],
  awaitingApproval: ['running', 'completed', 'failed', 'canceled'],
  completed: [],
  failed: [],
  canceled: [],
});

export type TaskStatus = (typeof TASKS.statuses)[number];

/** The task status a run's status implies; run statuses not listed leave the task alone. */
export const RUN_TO_TASK: Record<string, TaskStatus> = {
  ready: 'completed',
  NEEDS_INPUT: 'awaitingInput',
  awaitingProxy: 'awaitingProxy',
  awaitingApproval: 'awaitingApproval',
  failed: 'failed',
  canceled: 'canceled',
  running: 'running',
};
