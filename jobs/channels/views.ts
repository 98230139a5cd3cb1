import type { CallbackRow, ThreadRow, TimelineRow, TouchpointRow } from './repository.js';
import { iso } from '../../shared/db/knex.js';

export function threadView(row: ThreadRow) {
  return {
    threadId: row.id,
    externalKey: row.external_key,
    channel: row.channel,
    subject: row.subject,
    participants: row.participants,
    refs: {
      caseId: row.case_id,
      conversationId: row.conversation_id,
      missionId: row.mission_id,
      providerId: row.provider_id,
    },
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function touchpointView(row: TouchpointRow) {
  return {
    touchpointId: row.id,
    threadId: row.thread_id,
    direction: row.direction,
    status: row.status,
    body: row.body,
    data: row.data,
    refs: { caseId: row.case_id, conversationId: row.conversation_id, providerId: row.provider_id },
    at: iso(row.at)!,
    createdAt: iso(row.created_at)!,
  };
}

export function callbackView(row: CallbackRow) {
  return {
    callbackId: row.id,
    connectorId: row.connector_id,
    externalId: row.external_id,
    kind: row.kind,
    status: row.status,
    signature: row.signature,
    refs: row.refs,
    threadId: row.thread_id,
    payload: row.payload,
    reconciliation: row.reconciliation,
    reconciledAt: iso(row.reconciled_at),
    receivedAt: iso(row.received_at)!,
  };
}

export function timelineEntry(row: TimelineRow) {
  return { at: iso(row.at)!, kind: row.kind, ref: row.ref, status: row.status, detail: row.detail };
}
