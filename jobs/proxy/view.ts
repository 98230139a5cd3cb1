import type { ActionRow } from '../bridge/index.js';
import { iso } from '../../shared/db/knex.js';
import type { MissionRow } from './repository.js';
import type { ProviderRow, VerificationRow } from './providers-repository.js';
import { MISSIONS } from './machine.js';
import { proofArtefacts } from './logic.js';

/** Without a connectorId nothing is sent for a mission: the person does the contacting. */
const NOT_SENT = { status: 'notSent', reason: 'no connectorId was given: recorded for the person, nothing was sent' };

/** What went out for each of voiceCall and channelMsg: its bridge action (by capability), or nothing. */
function dispatchOf(row: MissionRow, actions: ActionRow[]) {
  const of = (part: 'voiceCall' | 'channelMsg') => {
    const action = actions.find((a) => a.input.part === part);
    return action ? { status: action.status, actionId: action.id, connectorId: action.connector_id } : NOT_SENT;
  };
  return {
    ...(row.voice_call ? { voiceCall: of('voiceCall') } : {}),
    ...(row.channel_msg ? { channelMsg: of('channelMsg') } : {}),
  };
}

/** A mission as the API shows it: the moves open to it now, its outcome and proof artefacts, and its history. */
export function missionView(row: MissionRow, provider: ProviderRow | null = null, actions: ActionRow[] = []) {
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
    dispatch: dispatchOf(row, actions),
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
    replies: row.replies ?? [],
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
  return {
    proxyId: row.mission_id,
    actor: row.actor,
    outcomeStatus: row.outcome_status,
    availability: row.availability,
    at: iso(row.at)!,
  };
}
