import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { getMission, moveMission, otherLiveMission, type MissionRow } from './repository.js';
import { getProvider, upsertProvider, verifyProvider, type ProviderRow } from './providers-repository.js';
import { lockRun } from '../../shared/db/run-writes.js';
import { getTask, moveTask } from '../tasks/index.js';
import { conflict, invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { MissionStatus, ProxyOutcome } from './schemas.js';
import { wakeDispatcher } from '../events/index.js';
import { type Emit, enqueueResumed, inRunTx, resolveRunWaitpoint, type ResumedRun } from '../orchestrator/index.js';
import { missingProof, providerIdentity, taskStatusAfter, verifiesProvider } from './logic.js';
import { noticeItem, wakeNotices, type ItemNotice } from '../inbox/index.js';
import { getRunById } from '../../shared/db/runs.js';
import { LIVE_MISSION_STATUSES, MISSIONS } from './machine.js';

/** How a mission ends: with an outcome, by the clock (expired) or canceled. */
export interface Ending {
  to: MissionStatus;
  actor: string;
  note?: string | null;
  outcome?: ProxyOutcome;
  /** The run's own resume path (proxyOutcome): refused unless the run is waiting on this very mission. */
  mustResume?: boolean;
}

export interface Ended {
  mission: MissionRow;
  provider: ProviderRow | null;
  verifiedProvider: { providerId: string; name: string; availability: Record<string, unknown> | null } | null;
  run: { runId: string; resumed: boolean; status: string } | null;
  resumed: ResumedRun | null;
}

/** Checks an outcome against the mission before anything is locked: the proof it requires, and a provider to verify. */
export function checkOutcome(mission: MissionRow, outcome: ProxyOutcome): void {
  if (outcome.status === 'confirmedSuccess') {
    const missing = missingProof(mission.proof_req, outcome.proof);
    if (missing.length > 0) {
      throw invalidPayload(
        `proof lacks what mission ${mission.id} requires: ${missing.join(', ')}`,
        missing.map((item) => ({
          path: `/proof/${item}`,
          message: "required by the mission's proofReq",
          keyword: 'required',
        })),
      );
    }
  }
  if (verifiesProvider(mission.reason, outcome.status) && !mission.provider_id && !outcome.availability?.providerName) {
    throw invalidPayload(
      `mission ${mission.id} names no provider: send availability.providerName so the provider book can ` +
        `record whom this confirms`,
      [{ path: '/availability/providerName', message: 'required to verify a provider', keyword: 'required' }],
    );
  }
}

/**
 * Ends a live mission exactly once. A run waiting on it resumes in the same
 * transaction: the run's row is locked first, then the mission's, and the
 * waitpoint is resolved with the mission, so however many outcomes race, one
 * wins and the run resumes once; the others are 409. The provider book, the
 * outbox event and (for a mission of its own, without a run) the task move
 * commit with it.
 */
export async function endMission(deps: Deps, accountId: string, proxyId: string, ending: Ending): Promise<Ended> {
  const seen = await getMission(deps.db, accountId, proxyId);
  if (!seen) throw notFound(`Mission ${proxyId}`);
  if (ending.outcome) checkOutcome(seen, ending.outcome);
  let deliveries = 0;
  let result: Ended;
  if (seen.run_id) {
    const runId = seen.run_id;
    result = await inRunTx(deps, runId, accountId, async (trx, emit) => {
      const run = await lockRun(trx, accountId, runId);
      const mission = await lockLive(trx, accountId, proxyId, ending.to);
      if (run && !run.finished_at && run.status !== 'awaitingProxy') {
        throw conflict(
          `Mission ${proxyId}'s run ${runId} has not come to rest at it yet (status ${run.status}); send ` +
            `this again in a moment`,
          { runStatus: run.status },
        );
      }
      const resumed = run && !run.finished_at ? await resumeRunOf(trx, emit, accountId, runId, mission, ending) : null;
      if (!resumed && ending.mustResume)
        throw conflict(`Run ${runId} is not waiting on mission ${proxyId} (status ${run?.status ?? 'gone'})`);
      const written = await record(trx, accountId, mission, ending);
      deliveries = written.deliveries;
      return {
        ...written.ended,
        run: { runId, resumed: Boolean(resumed), status: resumed ? resumed.run.status : (run?.status ?? 'gone') },
        resumed,
      };
    });
    if (result.resumed) await enqueueResumed(deps, runId, result.resumed);
  } else {
    if (ending.mustResume) throw conflict(`Mission ${proxyId} has no run to resume`);
    result = await deps.db.transaction(async (trx) => {
      const mission = await lockLive(trx, accountId, proxyId, ending.to);
      const written = await record(trx, accountId, mission, ending);
      deliveries = written.deliveries;
      return { ...written.ended, run: null, resumed: null };
    });
  }
  if (deliveries > 0) await wakeDispatcher(deps);
  if (ending.to === 'expired') await wakeNotices(deps);
  return result;
}

/** The inbox's notice of a mission (jobs/inbox): created through the API, or expired unanswered. */
export function missionNotice(m: MissionRow, event: 'created' | 'expired', submittedBy: string | null): ItemNotice {
  return {
    accountId: m.account_id,
    event,
    itemId: m.id,
    kind: 'mission',
    runId: m.run_id,
    gate: null,
    title: `Mission: ${m.task.length > 180 ? `${m.task.slice(0, 179)}…` : m.task}`,
    expiresAt: m.expires_at.toISOString(),
    submittedBy,
  };
}

/**
 * The mission under its row lock, still live and allowed to move to `to` (409 otherwise: an outcome is accepted once).
 */
async function lockLive(
  trx: Knex.Transaction,
  accountId: string,
  proxyId: string,
  to: MissionStatus,
): Promise<MissionRow> {
  const mission = await getMission(trx, accountId, proxyId, true);
  if (!mission) throw notFound(`Mission ${proxyId}`);
  if (MISSIONS.isTerminal(mission.status))
    throw conflict(`Mission ${proxyId} is already ${mission.status}; it takes one outcome`, { status: mission.status });
  MISSIONS.assertMove(mission.status, to, 'A mission');
  return mission;
}

/** Resolves the run's waitpoint for this mission (the engine's half of a resume, in this transaction). */
async function resumeRunOf(
  trx: Knex.Transaction,
  emit: Emit,
  accountId: string,
  runId: string,
  mission: MissionRow,
  ending: Ending,
): Promise<ResumedRun> {
  return resolveRunWaitpoint(trx, emit, accountId, runId, (run, wp) => {
    if (wp.domain !== 'proxy' || wp.payload.proxyId !== mission.id)
      throw conflict(`Run ${runId} waits on something else than mission ${mission.id}`);
    // The route goes on from the proxy step unchanged (proxyOutcome continues into no other domain).
    return {
      resolution: {
        action: 'proxyOutcome',
        proxyId: mission.id,
        missionStatus: ending.to,
        outcome: ending.outcome?.status ?? null,
      },
      action: 'proxyOutcome',
      route: run.route,
    };
  });
}

/** The mission's end, the provider book, the outbox event and the mission's own task, in the caller's transaction. */
async function record(
  trx: Knex.Transaction,
  accountId: string,
  mission: MissionRow,
  ending: Ending,
): Promise<{ ended: Omit<Ended, 'run' | 'resumed'>; deliveries: number }> {
  const { outcome, actor } = ending;
  const at = new Date().toISOString();
  let provider = mission.provider_id ? await getProvider(trx, accountId, mission.provider_id, true) : null;
  let verifiedProvider: Ended['verifiedProvider'] = null;
  if (outcome && verifiesProvider(mission.reason, outcome.status)) {
    const availability = outcome.availability ?? null;
    if (!provider) {
      const name = outcome.availability!.providerName!;
      provider = await upsertProvider(trx, {
        id: newId('prov'),
        accountId,
        name,
        phone: null,
        identity: providerIdentity(name, null),
      });
    }
    provider = await verifyProvider(trx, {
      providerId: provider.id,
      accountId,
      missionId: mission.id,
      actor,
      outcomeStatus: outcome.status,
      availability,
    });
    verifiedProvider = { providerId: provider.id, name: provider.name, availability: provider.availability };
  }
  const row = await moveMission(trx, mission.id, {
    status: ending.to,
    resolved: true,
    move: { from: mission.status, to: ending.to, at, actor, note: ending.note ?? outcome?.note ?? null },
    ...(outcome
      ? {
          outcome: {
            status: outcome.status,
            note: outcome.note ?? null,
            availability: outcome.availability ?? null,
            submittedAt: at,
            actor,
          },
          proof: outcome.proof ?? null,
        }
      : {}),
    ...(provider && !mission.provider_id ? { providerId: provider.id } : {}),
  });
  const refs = { proxyId: mission.id, taskId: mission.task_id, ...(mission.run_id ? { runId: mission.run_id } : {}) };
  const event = outcome
    ? {
        type: 'proxy.outcome',
        payload: {
          ...refs,
          status: outcome.status,
          missionStatus: ending.to,
          ...(verifiedProvider ? { verifiedProviderId: verifiedProvider.providerId } : {}),
        },
      }
    : ending.to === 'expired'
      ? { type: 'proxy.expired', payload: { ...refs, expiresAt: mission.expires_at.toISOString() } }
      : { type: 'proxy.canceled', payload: { ...refs, reason: ending.note ?? 'canceled' } };
  let { deliveries } = await recordEvent(trx, { accountId, subject: mission.id, ...event });
  // Whoever it waited for hears that it expired (the inbox's outbox; sent after commit).
  if (ending.to === 'expired') {
    const submittedBy = mission.run_id ? ((await getRunById(trx, mission.run_id))?.submitted_by ?? null) : null;
    await noticeItem(trx, missionNotice(mission, 'expired', submittedBy));
  }
  // A run's task follows its run; a mission of its own moves its task, unless another mission of the task is still
  // live.
  if (!mission.run_id) {
    const task = await getTask(trx, accountId, mission.task_id, true);
    if (
      task?.status === 'awaitingProxy' &&
      !(await otherLiveMission(trx, task.id, mission.id, LIVE_MISSION_STATUSES))
    ) {
      const to = taskStatusAfter(ending.to, outcome?.status ?? null);
      const outData = { proxyId: mission.id, missionStatus: ending.to, outcome: row.outcome, verifiedProvider };
      deliveries += (
        await moveTask(trx, accountId, task, to, {
          actor,
          note: `proxy mission ${mission.id} ${ending.to}`,
          ...(to === 'completed' ? { outData } : {}),
        })
      ).deliveries;
    }
  }
  return { ended: { mission: row, provider, verifiedProvider }, deliveries };
}
