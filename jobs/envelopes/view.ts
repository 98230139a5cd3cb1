import { iso } from '../../shared/db/knex.js';
import type { EnvelopeRow } from './repository.js';
import { ENVELOPES } from './machine.js';

/** An envelope as the API shows it, with the moves open to it now. */
export function envelopeView(row: EnvelopeRow) {
  return {
    msgId: row.id,
    planId: row.plan_id,
    kind: row.kind,
    sender: row.sender,
    recipient: row.recipient,
    runId: row.run_id,
    taskId: row.task_id,
    payload: row.payload,
    status: row.status,
    allowedTransitions: ENVELOPES.allowed(row.status),
    result: row.result,
    error: row.error,
    history: row.history,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
