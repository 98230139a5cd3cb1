import type { ActionRow } from './actions-repository.js';
import { iso } from '../../shared/db/knex.js';
import { ACTIONS } from './machines.js';

/** An action as the API shows it: what was sent (references, never values), what came back, and its moves. */
export function actionView(row: ActionRow) {
  return {
    actionId: row.id,
    connectorId: row.connector_id,
    capability: row.capability,
    resource: row.resource,
    input: row.input,
    hosting: row.hosting,
    status: row.status,
    allowedTransitions: ACTIONS.allowed(row.status),
    idempotencyKey: row.idempotency_key,
    attempts: row.attempts,
    request: row.request_summary,
    response: row.response,
    proof: row.proof,
    error: row.error,
    providerRef: row.provider_ref,
    refs: {
      threadId: row.thread_id,
      sessionId: row.session_id,
      caseId: row.case_id,
      missionId: row.mission_id,
      runId: row.run_id,
    },
    nextAttemptAt: iso(row.next_attempt_at),
    clientDeadline: iso(row.client_deadline),
    history: row.history,
    finishedAt: iso(row.finished_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
