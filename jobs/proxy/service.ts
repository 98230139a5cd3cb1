import type { Deps } from '../../shared/deps.js';
import { actionsOfMission, type ActionRow } from '../bridge/index.js';
import type { Db } from '../../shared/db/knex.js';
import {
  getMission,
  insertMission,
  listMissions,
  missionsByReference,
  moveMission,
  type MissionFilter,
  type MissionRow,
  type MissionReference,
  type NewMission,
} from './repository.js';
import {
  getProvider,
  listProviders,
  providerVerifications,
  upsertProvider,
  type ProviderRow,
} from './providers-repository.js';
import { getTask, moveTask, type TaskRow } from '../tasks/index.js';
import { conflict, invalidPayload, notFound } from '../../shared/errors.js';
import { newId, randomSecret } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { ProxyOutcome, type ProxyMissionCreate, type ProxyOutcomeByReference } from './schemas.js';
import { check } from '../../shared/validation.js';
import type { RunAnswer } from '../domain.js';
import { missionStatusFor, providerIdentity } from './logic.js';
import { normalizePhone } from '../../shared/phone.js';
import { LIVE_MISSION_STATUSES, MISSIONS } from './machine.js';
import { checkMissionSends, enqueueMissionSends, writeMissionSends } from './dispatch.js';
import { endMission, missionNotice, type Ended } from './outcome.js';
import { noticeItem, wakeNotices } from '../inbox/index.js';

const actorOf = (principal: Principal) => `token:${principal.tokenId}`;

/** What a new mission is made of, from the API or from a run's step. */
export type MissionFields = Pick<
  NewMission,
  'kind' | 'reason' | 'task' | 'context' | 'voice_call' | 'channel_msg' | 'proof_req' | 'resume'
>;

/**
 * Writes a mission, `open`, in the caller's transaction: its provider (the
 * context's selectedProvider, or the call's phone) goes into the provider
 * book unverified unless it is there already; it expires after
 * PROXY_MISSION_TTL_HOURS.
 */
export async function writeMission(
  trx: Db,
  deps: Pick<Deps, 'config'>,
  accountId: string,
  taskId: string,
  fields: MissionFields,
  origin: { actor: string; runId?: string; stepId?: string; requestId?: string; country?: unknown },
): Promise<{ mission: MissionRow; provider: ProviderRow | null }> {
  const selected = (fields.context.selectedProvider ?? {}) as Record<string, unknown>;
  const phone = normalizePhone(selected.phone ?? fields.voice_call?.phone, origin.country);
  const name = typeof selected.name === 'string' && selected.name.trim() ? selected.name.trim() : phone;
  const provider = name
    ? await upsertProvider(trx, { id: newId('prov'), accountId, name, phone, identity: providerIdentity(name, phone) })
    : null;
  const ref = typeof selected.providerId === 'string' ? selected.providerId : null;
  const mission = await insertMission(trx, {
    id: newId('prx'),
    account_id: accountId,
    task_id: taskId,
    run_id: origin.runId ?? null,
    step_id: origin.stepId ?? null,
    ...fields,
    status: 'open',
    provider_id: provider?.id ?? null,
    provider_ref: ref,
    callback_ref: `pcb_${randomSecret(18)}`,
    request_id: origin.requestId ?? null,
    history: [{ from: null, to: 'open', at: new Date().toISOString(), actor: origin.actor, note: 'created' }],
    expires_at: new Date(Date.now() + deps.config.PROXY_MISSION_TTL_HOURS * 3600_000),
  });
  return { mission, provider };
}

/**
 * Moves a task to awaitingProxy for a mission of its own (through running, as the task table says); a finished task
 * takes no mission.
 */
async function awaitProxy(trx: Db, principal: Principal, task: TaskRow, proxyId: string): Promise<number> {
  if (task.status === 'awaitingProxy') return 0;
  if (['completed', 'failed', 'canceled'].includes(task.status))
    throw conflict(`Task ${task.id} is ${task.status}; a mission needs a task that is not finished`, {
      taskStatus: task.status,
    });
  const opts = { actor: actorOf(principal), note: `proxy mission ${proxyId}` };
  const running = task.status === 'running' ? task : await moveTask(trx, principal.accountId, task, 'running', opts);
  return (await moveTask(trx, principal.accountId, running, 'awaitingProxy', opts)).deliveries;
}

/**
 * A mission from the API. A voiceCall or channelMsg naming a connectorId is
 * sent as a bridge action, checked before anything is written and queued
 * once the mission has committed.
 */
export async function createMission(
  deps: Deps,
  principal: Principal,
  body: ProxyMissionCreate,
  requestId: string,
): Promise<{ mission: MissionRow; provider: ProviderRow | null; actions: ActionRow[] }> {
  const { taskId, kind, reason, task, context, voiceCall, channelMsg, proofReq, resume } = body;
  if (!(await getTask(deps.db, principal.accountId, taskId))) throw notFound(`Task ${taskId}`);
  const sends = await checkMissionSends(deps, principal, voiceCall, channelMsg);
  const made = await deps.db.transaction(async (trx) => {
    const fields: MissionFields = {
      kind,
      reason,
      task,
      context: context ?? {},
      voice_call: voiceCall ?? null,
      channel_msg: channelMsg ?? null,
      proof_req: proofReq ?? [],
      resume: resume ?? null,
    };
    const written = await writeMission(trx, deps, principal.accountId, taskId, fields, {
      actor: actorOf(principal),
      requestId,
    });
    // The task is locked after the provider, as an outcome does (mission, provider, task), so the two never wait on
    // each other in a circle.
    const owned = (await getTask(trx, principal.accountId, taskId, true))!;
    await awaitProxy(trx, principal, owned, written.mission.id);
    // Its creator (or whoever it is assigned to) hears of it through the inbox, sent after commit.
    await noticeItem(trx, missionNotice(written.mission, 'created', principal.memberId ?? null));
    return {
      ...written,
      actions: await writeMissionSends(trx, principal.accountId, written.mission, sends, actorOf(principal)),
    };
  });
  await enqueueMissionSends(deps, made.actions);
  await wakeNotices(deps);
  return made;
}

export async function findMissions(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  filter: MissionFilter & { limit?: number; cursor?: string },
) {
  return listMissions(deps.db, principal.accountId, filter, filter.limit ?? 50, filter.cursor);
}

/** A mission with the provider it names. */
export async function fetchMission(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  proxyId: string,
): Promise<{ mission: MissionRow; provider: ProviderRow | null; actions: ActionRow[] }> {
  const mission = await getMission(deps.db, principal.accountId, proxyId);
  if (!mission) throw notFound(`Mission ${proxyId}`);
  const provider = mission.provider_id ? await getProvider(deps.db, principal.accountId, mission.provider_id) : null;
  return { mission, provider, actions: await actionsOfMission(deps.db, mission.id) };
}

/**
 * A client's move: take the mission (inProgress), hand it back (open), or cancel it (which resumes a run waiting on
 * it).
 */
export async function updateMission(
  deps: Deps,
  principal: Principal,
  proxyId: string,
  change: { status: 'open' | 'inProgress' | 'canceled'; note?: string; assignee?: string },
) {
  if (change.status === 'canceled')
    return endMission(deps, principal.accountId, proxyId, {
      to: 'canceled',
      actor: actorOf(principal),
      note: change.note ?? 'canceled by the client',
    });
  const mission = await deps.db.transaction(async (trx) => {
    const row = await getMission(trx, principal.accountId, proxyId, true);
    if (!row) throw notFound(`Mission ${proxyId}`);
    MISSIONS.assertMove(row.status, change.status, 'A mission');
    const move = {
      from: row.status,
      to: change.status,
      at: new Date().toISOString(),
      actor: actorOf(principal),
      note: change.note ?? null,
    };
    return moveMission(trx, proxyId, {
      status: change.status,
      move,
      assignee: change.status === 'inProgress' ? (change.assignee ?? actorOf(principal)) : undefined,
    });
  });
  return { mission, provider: null, verifiedProvider: null, run: null, resumed: null } satisfies Ended;
}

export function submitOutcome(
  deps: Deps,
  principal: Principal,
  proxyId: string,
  outcome: ProxyOutcome,
): Promise<Ended> {
  return endMission(deps, principal.accountId, proxyId, {
    to: missionStatusFor(outcome.status),
    actor: actorOf(principal),
    outcome,
  });
}

/**
 * The outcome addressed by reference: every reference given must match, and exactly one live mission must (404 none,
 * 409 several).
 */
export async function submitOutcomeByReference(
  deps: Deps,
  principal: Principal,
  body: ProxyOutcomeByReference,
): Promise<Ended> {
  const { proxyId, runId, requestId, providerRef, callbackRef, ...outcome } = body;
  const ref: MissionReference = { proxyId, runId, requestId, providerRef, callbackRef };
  if (!Object.values(ref).some(Boolean)) {
    throw invalidPayload('Name the mission: proxyId, runId, requestId, providerRef or callbackRef', [
      { path: '/proxyId', message: 'one reference is required', keyword: 'required' },
    ]);
  }
  const found = await missionsByReference(deps.db, principal.accountId, ref, LIVE_MISSION_STATUSES);
  if (found.length === 0) throw notFound(`An open mission matching ${describe(ref)}`);
  if (found.length > 1)
    throw conflict(`${found.length} open missions match ${describe(ref)}; add a reference that tells them apart`, {
      proxyIds: found.map((m) => m.id),
    });
  return submitOutcome(deps, principal, found[0]!.id, outcome as ProxyOutcome);
}

const describe = (ref: MissionReference) =>
  Object.entries(ref)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k} ${v}`)
    .join(' and ');

/**
 * The `proxyOutcome` answer of a run waiting on a mission (a follow-up turn,
 * POST /v1/runs/{runId}/resume, an A2A message): the outcome is in
 * `data.outcome` and goes through the outcome route's path.
 */
export async function answerFromRun(deps: Deps, principal: Principal, runId: string, answer: RunAnswer) {
  const outcome = answer.data?.outcome;
  const errors = check(ProxyOutcome, outcome).map((e) => ({ ...e, path: `/metadata/outcome${e.path}` }));
  if (errors.length > 0)
    throw invalidPayload(
      'A proxyOutcome answer carries the outcome in metadata.outcome (data.outcome on ' +
        '/v1/runs/{runId}/resume): status, note, availability, proof',
      errors,
    );
  const [mission] = await missionsByReference(deps.db, principal.accountId, { runId }, LIVE_MISSION_STATUSES, 1);
  if (!mission) throw conflict(`Run ${runId} is not waiting on an open proxy mission`);
  const ended = await endMission(deps, principal.accountId, mission.id, {
    to: missionStatusFor((outcome as ProxyOutcome).status),
    actor: actorOf(principal),
    outcome: outcome as ProxyOutcome,
    mustResume: true,
  });
  return ended.resumed!.run;
}

export async function findProviders(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  filter: { status?: string; limit?: number; cursor?: string },
) {
  return listProviders(deps.db, principal.accountId, filter, filter.limit ?? 50, filter.cursor);
}

/** A provider of the book with its verification history, oldest first. */
export async function fetchProvider(deps: Pick<Deps, 'db'>, principal: Principal, providerId: string) {
  const provider = await getProvider(deps.db, principal.accountId, providerId);
  if (!provider) throw notFound(`Provider ${providerId}`);
  return { provider, verifications: await providerVerifications(deps.db, provider.id) };
}
