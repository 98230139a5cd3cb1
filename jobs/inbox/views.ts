import { iso } from '../../shared/db/knex.js';
import type { RestingWaitpointRow } from '../../shared/db/waitpoint-reads.js';
import { answerApproves, gateOfWaitpoint } from '../approval-gates.js';
import { domainModule } from '../module-registry.js';
import type { MissionRow } from '../proxy/index.js';
import { answerForm } from './answer-schema.js';
import { ifApproved, inboxLink, itemKindOf, titleOf } from './logic.js';
import type { AssignmentRow, FileRow } from './repository.js';
import type { InboxItem, ItemKind } from './schemas.js';

/** Milliseconds, as the list orders and its cursor compares. */
const ms = (d: Date | string) => new Date(Math.floor(new Date(d).getTime())).toISOString();

function assignmentFields(a: AssignmentRow | undefined, now: number) {
  const claimed = a?.claimed_by && a.claim_expires_at && a.claim_expires_at.getTime() > now;
  return {
    assignee: a?.assignee ?? null,
    assignedBy: a?.assignee ? (a.assigned_by ?? null) : null,
    claimedBy: claimed ? a!.claimed_by : null,
    claimExpiresAt: claimed ? iso(a!.claim_expires_at) : null,
  };
}

export function waitpointItem(wp: RestingWaitpointRow, a: AssignmentRow | undefined, now = Date.now()): InboxItem {
  const kind = itemKindOf(wp.kind) as ItemKind;
  const gate = kind === 'approval' ? gateOfWaitpoint(wp) : null;
  return {
    itemId: wp.id,
    kind,
    domain: wp.domain,
    runId: wp.run_id,
    waitpointId: wp.id,
    proxyId: null,
    gate,
    ...titleOf({ kind, domain: wp.domain, gate, payload: wp.payload, request: wp.run_request }),
    createdAt: ms(wp.created_at),
    expiresAt: iso(wp.expires_at ?? null),
    escalatedAt: iso(wp.escalated_at ?? null),
    submittedBy: wp.submitted_by,
    ...assignmentFields(a, now),
    link: inboxLink(wp.id),
  };
}

export function missionItem(
  m: MissionRow,
  a: AssignmentRow | undefined,
  submittedBy: string | null,
  now = Date.now(),
): InboxItem {
  return {
    itemId: m.id,
    kind: 'mission',
    domain: 'proxy',
    runId: m.run_id,
    waitpointId: null,
    proxyId: m.id,
    gate: null,
    ...titleOf({ kind: 'mission', domain: 'proxy', gate: null, payload: {}, request: null, task: m.task }),
    createdAt: ms(m.created_at),
    expiresAt: iso(m.expires_at),
    escalatedAt: null,
    submittedBy,
    ...assignmentFields(a, now),
    link: inboxLink(m.id),
  };
}

const declared = (domain: string) => domainModule(domain)?.resumeActions ?? {};
const approves = (action: string | undefined) => answerApproves({ action });
const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

export function fileView(f: FileRow) {
  return {
    sha256: f.sha256,
    proofItem: f.proof_item,
    name: f.name,
    contentType: f.content_type,
    size: f.size,
    href: `/v1/inbox/${f.item_id}/files/${f.sha256}`,
    createdAt: iso(f.created_at)!,
  };
}

/** A choice or an approval with everything a person needs to answer it, and the form of the answer. */
export function waitpointDetail(wp: RestingWaitpointRow, item: InboxItem) {
  const choices = Array.isArray(wp.payload.choices) ? (wp.payload.choices as Array<Record<string, unknown>>) : [];
  const form = answerForm(
    {
      kind: item.kind,
      domain: wp.domain,
      choices: choices.map((c) => String(c.itemId)),
      proofReq: [],
      approves,
    },
    declared(wp.domain),
  );
  const route = wp.run_route;
  const input = wp.run_input ?? {};
  const metadata = obj(input.metadata) ?? {};
  const budget = obj(input.budget) ?? obj(metadata.budget) ?? (input.budgetUsd ? { amount: input.budgetUsd } : null);
  return {
    ...item,
    answerSchema: form.schema,
    actions: form.actions,
    run: { runId: wp.run_id, status: wp.run_status, request: wp.run_request, route, taskId: wp.run_task_id },
    choice:
      item.kind === 'choice'
        ? { question: str(wp.payload.question), intent: str(wp.payload.intent), candidates: choices }
        : null,
    approval:
      item.kind === 'approval'
        ? {
            gate: item.gate!,
            question: str(wp.payload.question) ?? str(wp.payload.message),
            ifApproved: ifApproved(wp.domain, item.gate!, wp.payload),
            plan: {
              route,
              waitingStep: { domain: wp.domain, index: wp.step_index },
              // The waiting step runs again with the answer, then the rest of the route.
              remaining: route.slice(wp.step_index),
            },
            amount: obj(wp.payload.purchase) ?? obj(wp.payload.amount),
            budget,
            diff: str(wp.payload.diff) ?? str(wp.payload.patch),
            details: wp.payload,
          }
        : null,
    mission: null,
  };
}

/** A mission with its task, the proof items it requires (which were handed in), its files and the answer form. */
export function missionDetail(
  m: MissionRow,
  item: InboxItem,
  files: FileRow[],
  run: { status: string; request: string; route: string[]; taskId: string | null } | null,
) {
  const form = answerForm(
    { kind: 'mission', domain: 'proxy', choices: [], proofReq: m.proof_req, approves },
    declared('proxy'),
  );
  const proof = m.proof ?? {};
  const items = [...new Set([...m.proof_req, ...Object.keys(proof)])];
  return {
    ...item,
    answerSchema: form.schema,
    actions: form.actions,
    run: run && m.run_id ? { runId: m.run_id, ...run } : null,
    choice: null,
    approval: null,
    mission: {
      proxyId: m.id,
      kind: m.kind,
      reason: m.reason,
      status: m.status,
      task: m.task,
      context: m.context,
      voiceCall: m.voice_call,
      channelMsg: m.channel_msg,
      proofReq: m.proof_req,
      proofItems: items.map((i) => ({ item: i, required: m.proof_req.includes(i), provided: Object.hasOwn(proof, i) })),
      files: files.map(fileView),
    },
  };
}
