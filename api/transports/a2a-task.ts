import { Role, TaskState, type Artifact, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { runDetailFor } from '../../jobs/orchestrator/run-queries.js';
import { FINAL_OUTCOMES, WAIT_STATUSES } from '../../jobs/orchestrator/run-state.js';
import type { RunEvent } from '../../shared/db/runs.js';

/** A run as GET /v1/runs/{runId} shows it; an A2A task is that run. */
export type RunDetail = Awaited<ReturnType<typeof runDetailFor>>;
type Result = {
  proofCard?: { cardId?: string } | null;
  agentConversation?: string[];
  results?: unknown;
  route?: string[];
};

/**
 * Run status → task state: queued is submitted, running is working, every
 * waiting status (NEEDS_INPUT, awaitingProxy, awaitingApproval) is
 * input-required, and a final status is completed, failed or canceled as its
 * outcome says (a domain's `delivered` completes, its `blocked` fails).
 */
export function taskState(status: string): TaskState {
  if (status === 'queued') return TaskState.TASK_STATE_SUBMITTED;
  if (status === 'running') return TaskState.TASK_STATE_WORKING;
  if (WAIT_STATUSES.includes(status)) return TaskState.TASK_STATE_INPUT_REQUIRED;
  const outcome = FINAL_OUTCOMES[status];
  if (outcome === 'succeeded') return TaskState.TASK_STATE_COMPLETED;
  if (outcome === 'canceled') return TaskState.TASK_STATE_CANCELED;
  return TaskState.TASK_STATE_FAILED;
}

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

export function agentMessage(ids: { taskId: string; contextId: string }, messageId: string, parts: Part[]): Message {
  return {
    messageId,
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const idsOf = (run: RunDetail) => ({ taskId: run.runId, contextId: run.conversationId ?? run.runId });

/**
 * What the agent says with the status: the question of a waitpoint, the error of a failure, the conversation of a
 * finished run.
 */
function statusMessage(run: RunDetail): Message | undefined {
  const ids = idsOf(run);
  const id = `${run.runId}-status-${run.segment}`;
  if (run.waitpoint) {
    const how =
      run.waitpoint.kind === 'NEEDS_INPUT'
        ? 'reply on this task with a data part {"itemId": "<one of the choices>", "action": "<an action it accepts>"}'
        : 'reply on this task with a data part {"approved": true|false} or the outcome it asks for';
    return agentMessage(ids, id, [
      textPart(`The run waits for input at ${run.waitpoint.domain} (${run.waitpoint.kind}): ${how}.`),
      dataPart({ waitpoint: run.waitpoint }),
    ]);
  }
  if (run.error) return agentMessage(ids, id, [textPart(run.error)]);
  const lines = (run.result as Result | null)?.agentConversation ?? [];
  return lines.length > 0 ? agentMessage(ids, id, [textPart(lines.join('\n'))]) : undefined;
}

/** The run's answer as artifacts: its result (results by domain, route, conversation) and its proof card. */
export function artifacts(run: RunDetail): Artifact[] {
  const result = run.result as Result | null;
  if (!result) return [];
  const out: Artifact[] = [
    {
      artifactId: 'result',
      name: 'result',
      description:
        "The run's results by domain, its route and agent conversation (as POST /v1/orchestrator/run answers them)",
      parts: [
        dataPart({
          runId: run.runId,
          status: run.status,
          route: result.route ?? run.route,
          results: result.results ?? {},
          agentConversation: result.agentConversation ?? [],
        }),
      ],
      metadata: undefined,
      extensions: [],
    },
  ];
  if (result.proofCard?.cardId) {
    out.push({
      artifactId: result.proofCard.cardId,
      name: 'proofCard',
      description: 'Evidence status, confidence, open questions and recommended restraint',
      parts: [dataPart(result.proofCard)],
      metadata: undefined,
      extensions: [],
    });
  }
  return out;
}

/** The run as an A2A task; `historyLength` 0 leaves out the request message. */
export function runTask(run: RunDetail, historyLength?: number): Task {
  const ids = idsOf(run);
  const request: Message = {
    ...agentMessage(ids, `${run.runId}-request`, [textPart(run.request)]),
    role: Role.ROLE_USER,
  };
  return {
    id: run.runId,
    contextId: ids.contextId,
    status: { state: taskState(run.status), message: statusMessage(run), timestamp: run.updatedAt ?? undefined },
    artifacts: artifacts(run),
    history: historyLength === 0 ? [] : [request],
    metadata: { awp: { runId: run.runId, status: run.status, route: run.route, links: run.links } },
  };
}

/**
 * A working-state update for a run event a client would show (handoffs, conversation, progress, domain streams); null
 * for the others.
 */
export function eventUpdate(run: { taskId: string; contextId: string }, ev: RunEvent): StreamResponse | null {
  const text =
    ev.type === 'handoff'
      ? `[${String(ev.name)}] ${String(ev.message ?? ev.phase)}`
      : ev.type === 'conversation'
        ? String(ev.line)
        : ev.type === 'progress'
          ? String(ev.message)
          : ev.type === 'domainStream'
            ? `[${String(ev.domain)}] ${String(ev.message)}`
            : null;
  if (text === null) return null;
  return {
    payload: {
      $case: 'statusUpdate',
      value: {
        ...run,
        status: {
          state: TaskState.TASK_STATE_WORKING,
          message: agentMessage(run, `${run.taskId}-event-${ev.id}`, [textPart(text)]),
          timestamp: ev.at,
        },
        metadata: { awp: { eventId: ev.id, type: ev.type } },
      },
    },
  };
}

/** How a segment's rest is streamed: its artifacts, then the status it rests at (the stream ends there). */
export function restUpdates(run: RunDetail): StreamResponse[] {
  const ids = idsOf(run);
  const task = runTask(run);
  return [
    ...task.artifacts.map((artifact): StreamResponse => ({
      payload: {
        $case: 'artifactUpdate',
        value: { ...ids, artifact, append: false, lastChunk: true, metadata: undefined },
      },
    })),
    { payload: { $case: 'statusUpdate', value: { ...ids, status: task.status, metadata: task.metadata } } },
  ];
}
