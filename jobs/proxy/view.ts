import { iso } from '../../shared/db/knex.js';
import type { MissionRow, ProviderRow, VerificationRow } from '../../shared/db/proxy.js';
import { MISSIONS } from './machine.js';
import { proofArtefacts } from './logic.js';

/** Until bridge actions exist (issue 14) nothing is sent for a mission: the person does the contacting. */
const NOT_SENT = { status: 'notSent' as const, reason: 'recorded for the bridge to send once bridge actions exist; nothing was sent' };

/** A mission as the API shows it: the moves open to it now, its outcome and proof artefacts, and its history. */
export function missionView(row: MissionRow, provider: ProviderRow | null = null) {
  return {
    proxyId: row.id,
    taskId: row.task_id,
    runId: row.run_id,
    kind: row.kind,
    reason: row.reason,
    task: row.task,
    context: row.context,
    voiceCall: row.voice_call,
    channelMsg: row.channel_msg,
    dispatch: { ...(row.voice_call ? { voiceCall: NOT_SENT } : {}), ...(row.channel_msg ? { channelMsg: NOT_SENT } : {}) },
    proofReq: row.proof_req,
    resume: row.resume,
    status: row.status,
    allowedTransitions: MISSIONS.allowed(row.status),
    assignee: row.assignee,
    outcome: row.outcome,
    proof: row.proof,
    proofArtefacts: proofArtefacts(row.proof_req, row.proof),
    provider: provider ? { providerId: provider.id, name: provider.name, status: provider.status } : null,
    providerRef: row.provider_ref,
    callbackRef: row.callback_ref,
    requestId: row.request_id,
    expiresAt: iso(row.expires_at)!,
    resolvedAt: iso(row.resolved_at),
    history: row.history,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function providerView(row: ProviderRow) {
  return {
    providerId: row.id,
    name: row.name,
    phone: row.phone,
    status: row.status,
    availability: row.availability,
    verifiedAt: iso(row.verified_at),
    verifiedBy: row.verified_by,
    verifiedByMission: row.verified_mission_id,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function verificationView(row: VerificationRow) {
  return { proxyId: row.mission_id, actor: row.actor, outcomeStatus: row.outcome_status, availability: row.availability, at: iso(row.at)! };
}
