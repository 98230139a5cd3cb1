import type { Deps } from '../../shared/deps.js';
import { getMission, missionOfStep, type MissionRow } from './repository.js';
import { getProvider } from './providers-repository.js';
import { attachTaskToRun } from '../../shared/db/run-writes.js';
import { getRunById } from '../../shared/db/runs.js';
import { invalidPayload, policyViolation } from '../../shared/errors.js';
import type { EvidenceItem, StepHandler, StepInput, StepOutcome } from '../step.js';
import { insertNewTask, moveTask } from '../tasks/index.js';
import { planStepMission, proofArtefacts, type StepMission } from './logic.js';
import { writeMission } from './service.js';
import { actionsOfMission, type ActionRow } from '../bridge/index.js';
import { enqueueMissionSends, writeMissionSends } from './dispatch.js';
import { planStepSends } from './step-dispatch.js';
import { missionView } from './view.js';

const strings = (v: unknown) =>
  Array.isArray(v)
    ? v.filter((x): x is string => typeof x === 'string' && /^[A-Za-z0-9_.-]{1,200}$/.test(x))
    : undefined;

/**
 * The proxy step hands work to a person: it builds a mission from the
 * request, the candidate a hunt step selected and the body's consent,
 * creates a task when the run has none, and rests the run at
 * `awaitingProxy`. When the mission's outcome resumes the run, it reports
 * the outcome and its proof, and the route goes on only after a confirmed
 * success.
 */
export const proxyStep: StepHandler = async (input, deps) => {
  if (input.resume?.kind === 'awaitingProxy') return reportOutcome(input, deps);
  const consentToCall = input.extras.consentToCall === true || input.metadata.consentToCall === true;
  const plan = planStepMission({
    clause: input.clause,
    selected: (input.prior.hunt?.selected ?? null) as Record<string, unknown> | null,
    consentToCall,
    country: input.extras.country,
    proofReq: strings(input.metadata.proofReq),
  });
  await input.emit(`Preparing a ${plan.kind} mission`, { kind: plan.kind, reason: plan.reason });
  const { mission, actions } = await createStepMission(deps, input, plan, consentToCall);
  const view = missionView(mission, null, actions);
  const output = {
    proxyId: mission.id,
    status: mission.status,
    kind: mission.kind,
    reason: mission.reason,
    task: mission.task,
    taskId: mission.task_id,
    selectedProvider: mission.context.selectedProvider ?? null,
    voiceCall: mission.voice_call,
    channelMsg: mission.channel_msg,
    dispatch: view.dispatch,
    proofReq: mission.proof_req,
    consentToCall,
    expiresAt: view.expiresAt,
    outcomeRoute: `/v1/proxy/missions/${mission.id}/outcome`,
  };
  return {
    output,
    evidence: [],
    conversation: [
      `Handed a ${mission.kind} mission (${mission.id}) to a person: ${mission.task}`,
      ...plan.notes,
      `The run waits for the mission's ` +
        `outcome${mission.proof_req.length ? `, with proof: ${mission.proof_req.join(', ')}` : ''}.`,
    ],
    openQuestions: [
      `Waiting for the outcome of proxy mission ${mission.id} (${mission.kind}): ${mission.task}`,
      ...plan.notes,
    ],
    suspend: {
      kind: 'awaitingProxy',
      payload: {
        proxyId: mission.id,
        kind: mission.kind,
        reason: mission.reason,
        task: mission.task,
        proofReq: mission.proof_req,
      },
    },
  };
};

/**
 * The mission of this step, made once: a retried step finds the one it made
 * (keyed by its step id). A run without a task gets one (running, as its
 * run is), which then follows the run.
 */
async function createStepMission(
  deps: Deps,
  input: StepInput,
  plan: StepMission,
  consentToCall: boolean,
): Promise<{ mission: MissionRow; actions: ActionRow[] }> {
  const stepId = `${input.runId}.${input.segment}.${input.index}.${input.domain}`;
  const made = await missionOfStep(deps.db, stepId);
  if (made) return { mission: made, actions: await actionsOfMission(deps.db, made.id) };
  const actor = `run:${input.runId}`;
  const sends = await planStepSends(deps, input, plan, consentToCall);
  const written = await deps.db.transaction(async (trx) => {
    const run = await getRunById(trx, input.runId);
    if (!run) throw invalidPayload(`run ${input.runId} is gone`);
    let taskId = run.task_id;
    if (!taskId) {
      const task = await insertNewTask(trx, input.accountId, actor, {
        domain: 'proxy',
        inData: { request: input.request, runId: input.runId },
        channel: run.channel,
      });
      await moveTask(trx, input.accountId, task, 'running', { actor, note: 'run started' });
      await attachTaskToRun(trx, input.runId, task.id);
      taskId = task.id;
    }
    const fields = {
      kind: plan.kind,
      reason: plan.reason,
      task: plan.task,
      context: plan.context,
      voice_call: sends.voiceCall,
      channel_msg: sends.channelMsg,
      proof_req: plan.proofReq,
      resume: null,
    };
    const { mission } = await writeMission(trx, deps, input.accountId, taskId, fields, {
      actor,
      runId: input.runId,
      stepId,
      country: input.extras.country,
    });
    return { mission, actions: await writeMissionSends(trx, input.accountId, mission, sends.checked, actor) };
  });
  // Sent once the mission has committed (a lost enqueue is put back by the bridge.actions sweep).
  await enqueueMissionSends(deps, written.actions);
  return written;
}

/**
 * After the mission ended: its outcome and proof become the step's output and evidence; only a confirmed success lets
 * the route go on.
 */
async function reportOutcome(input: StepInput, deps: Deps): Promise<StepOutcome> {
  const proxyId = String(input.resume!.data?.proxyId ?? '');
  const mission = await getMission(deps.db, input.accountId, proxyId);
  if (!mission) throw invalidPayload(`proxy mission ${proxyId} of this run is gone`);
  const outcome = mission.outcome as {
    status?: string;
    note?: string | null;
    availability?: Record<string, unknown> | null;
  } | null;
  const provider = mission.provider_id ? await getProvider(deps.db, input.accountId, mission.provider_id) : null;
  const verified = provider?.status === 'verified' && provider.verified_mission_id === mission.id;
  const artefacts = proofArtefacts(mission.proof_req, mission.proof);
  const source = `awp:proxyMission:${mission.id}#v1`;
  const note = outcome?.note ? ` (${outcome.note})` : '';
  const evidence: EvidenceItem[] = [
    ...(outcome
      ? [
          {
            claim: `Mission ${mission.id} (${mission.kind}) came back ${outcome.status}${note}`,
            source,
            sourceBound: artefacts.length > 0,
          },
        ]
      : []),
    ...artefacts.map((a) => ({
      claim: `Proof "${a.item}" handed in (sha256 ${a.sha256.slice(0, 16)}…)`,
      source: `${source}/proof/${a.item}`,
      sourceBound: true,
    })),
  ];
  const output = {
    proxyId: mission.id,
    missionStatus: mission.status,
    outcome,
    proof: mission.proof,
    proofArtefacts: artefacts,
    taskId: mission.task_id,
    verifiedProvider: verified
      ? { providerId: provider.id, name: provider.name, availability: provider.availability }
      : null,
  };
  if (mission.status !== 'resolved') {
    throw policyViolation(
      `proxy mission ${mission.id} ended ` +
        `${mission.status}${outcome ? ` (${outcome.status}${note})` : ' with no outcome'}; nothing was ` +
        `confirmed`,
    );
  }
  if (outcome?.status !== 'confirmedSuccess') {
    const run = await getRunById(deps.db, input.runId);
    const next = run?.route[input.index + 1];
    const who = provider?.name ?? 'The provider';
    if (next)
      throw policyViolation(
        `proxy mission ${mission.id} came back ${outcome?.status}${note}: ${who} cannot do it, so the run ` +
          `does not go on into ${next}`,
      );
    return {
      output,
      evidence,
      conversation: [`${who} is not available${note}.`],
      openQuestions: [`${who} is not available${note}; look for another provider?`],
    };
  }
  return {
    output: { ...output, selected: output.verifiedProvider ?? undefined },
    evidence,
    conversation: [
      `Mission ${mission.id} ` +
        `confirmed${note}.${verified ? ` ${provider.name} is now verified in the provider book.` : ''}`,
    ],
  };
}
