import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { getRun } from '../../shared/db/runs.js';
import { restingWaitpoint, restingWaitpoints, submittersOf } from '../../shared/db/waitpoint-reads.js';
import { conflict, forbidden, invalidPayload, notFound } from '../../shared/errors.js';
import { ROLE_SCOPES, type Principal } from '../../shared/schemas/auth.js';
import { activeMembers, memberStanding } from '../accounts/index.js';
import { separated, selfApprovalError } from '../approvals/index.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { getMission, LIVE_MISSION_STATUSES, liveMissions } from '../proxy/index.js';
import { ageMs, CLAIM_MINUTES, decodeCursor, DEFAULT_CHOICES, encodeCursor, sourceOf, WAIT_KINDS } from './logic.js';
import {
  assignedItemIds,
  assignmentsOf,
  filesOf,
  getChoices,
  lockAssignment,
  putChoices,
  updateAssignment,
} from './repository.js';
import {
  ITEM_KINDS,
  NOTICE_EVENTS,
  type InboxItem,
  type InboxQuery,
  type ItemKind,
  type NotificationChoices,
} from './schemas.js';
import { missionDetail, missionItem, waitpointDetail, waitpointItem } from './views.js';
import { publishChange } from './stream.js';

const memberOf = (principal: Principal) => {
  if (!principal.memberId) throw forbidden('The inbox is a member’s: this token belongs to no member');
  return principal.memberId;
};

/** The account's items waiting for a person, newest first, filtered, one page (keyset cursor over both stores). */
export async function listItems(deps: Pick<Deps, 'db'>, principal: Principal, q: InboxQuery) {
  const accountId = principal.accountId;
  const limit = q.limit ?? 50;
  const kinds: readonly ItemKind[] = q.kind ? [q.kind] : ITEM_KINDS;
  const f: { createdBefore?: Date; ids?: string[]; exceptIds?: string[]; after?: { createdAt: string; id: string } } =
    {};
  if (q.cursor) f.after = decodeCursor(q.cursor);
  if (q.olderThan) f.createdBefore = new Date(Date.now() - ageMs(q.olderThan));
  if (q.assignee === 'none') f.exceptIds = await assignedItemIds(deps.db, accountId);
  else if (q.assignee)
    f.ids = await assignedItemIds(deps.db, accountId, q.assignee === 'me' ? memberOf(principal) : q.assignee);
  const waitKinds = kinds.filter((k) => k !== 'mission').map((k) => WAIT_KINDS[k as 'choice' | 'approval']);
  const [wps, missions] = await Promise.all([
    waitKinds.length > 0
      ? restingWaitpoints(deps.db, accountId, { kinds: waitKinds, domain: q.domain, ...f }, limit + 1)
      : [],
    kinds.includes('mission') && (!q.domain || q.domain === 'proxy')
      ? liveMissions(deps.db, accountId, LIVE_MISSION_STATUSES, f, limit + 1)
      : [],
  ]);
  const ids = [...wps.map((w) => w.id), ...missions.map((m) => m.id)];
  const [assignments, submitters] = await Promise.all([
    assignmentsOf(deps.db, accountId, ids),
    submittersOf(
      deps.db,
      accountId,
      missions.flatMap((m) => (m.run_id ? [m.run_id] : [])),
    ),
  ]);
  const assigned = new Map(assignments.map((a) => [a.item_id, a]));
  const items: InboxItem[] = [
    ...wps.map((w) => waitpointItem(w, assigned.get(w.id))),
    ...missions.map((m) => missionItem(m, assigned.get(m.id), m.run_id ? (submitters.get(m.run_id) ?? null) : null)),
  ].sort((a, b) => (a.createdAt === b.createdAt ? (a.itemId < b.itemId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
  const page = items.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page, nextCursor: items.length > limit && last ? encodeCursor(last.createdAt, last.itemId) : null };
}

/** One open item of the account, in full (404 for an unknown, answered or foreign one). */
export async function loadItem(db: Db, accountId: string, itemId: string) {
  const source = sourceOf(itemId);
  if (source === 'waitpoint') {
    const wp = await restingWaitpoint(db, accountId, itemId);
    if (!wp || (wp.kind !== WAIT_KINDS.choice && wp.kind !== WAIT_KINDS.approval)) return null;
    const [a] = await assignmentsOf(db, accountId, [itemId]);
    return { source, wp, detail: waitpointDetail(wp, waitpointItem(wp, a)), assignment: a };
  }
  if (source === 'mission') {
    const m = await getMission(db, accountId, itemId);
    if (!m || !(LIVE_MISSION_STATUSES as readonly string[]).includes(m.status)) return null;
    const [a] = await assignmentsOf(db, accountId, [itemId]);
    const run = m.run_id ? await getRun(db, accountId, m.run_id) : null;
    const item = missionItem(m, a, run?.submitted_by ?? null);
    const files = await filesOf(db, accountId, itemId);
    const runView = run ? { status: run.status, request: run.request, route: run.route, taskId: run.task_id } : null;
    return { source, mission: m, detail: missionDetail(m, item, files, runView), assignment: a };
  }
  return null;
}

export type LoadedItem = NonNullable<Awaited<ReturnType<typeof loadItem>>>;

export async function fetchItem(deps: Pick<Deps, 'db'>, principal: Principal, itemId: string): Promise<LoadedItem> {
  const found = await loadItem(deps.db, principal.accountId, itemId);
  if (!found) throw notFound(`Inbox item ${itemId} (it may have been answered)`);
  return found;
}

/** The scope a member needs to answer (and so to claim) an item of `kind`. */
export const ANSWER_SCOPE: Record<ItemKind, string> = {
  choice: 'runs:write',
  approval: 'approvals:write',
  mission: 'proxy:write',
};

export function assertMayAnswer(principal: Principal, kind: ItemKind) {
  const scope = ANSWER_SCOPE[kind];
  if (!principal.scopes.includes(scope) && !principal.scopes.includes('admin'))
    throw forbidden(`Answering a ${kind} needs the ${scope} scope`);
}

/**
 * Assigns the item to an active member of the account (null unassigns it). An approval goes only to a member whose
 * role approves, and not to the run's submitter unless the account's policy lets the submitter approve (409
 * selfApproval), so the assignee can always answer what they are given.
 */
export async function assignItem(deps: Deps, principal: Principal, itemId: string, memberId: string | null) {
  const found = await fetchItem(deps, principal, itemId);
  const item = found.detail;
  if (memberId) {
    const standing = await memberStanding(deps.db, principal.accountId, memberId);
    if (!standing) throw notFound(`Member ${memberId}`);
    if (standing.status !== 'active')
      throw invalidPayload(`Member ${memberId} is ${standing.status}; only an active member is assigned items`, [
        { path: '/memberId', message: 'not an active member', keyword: 'enum' },
      ]);
    if (!(ROLE_SCOPES[standing.role] as readonly string[]).includes(ANSWER_SCOPE[item.kind]))
      throw invalidPayload(`Member ${memberId} (${standing.role}) may not answer a ${item.kind}`, [
        { path: '/memberId', message: `role ${standing.role} lacks ${ANSWER_SCOPE[item.kind]}`, keyword: 'enum' },
      ]);
    if (
      item.kind === 'approval' &&
      !(await separated(deps.db, principal.accountId, memberId, item.submittedBy, item.gate!))
    )
      throw selfApprovalError(memberId, item.gate!);
  }
  const row = await deps.db.transaction(async (trx) => {
    const before = await lockAssignment(trx, principal.accountId, itemId);
    const after = await updateAssignment(trx, principal.accountId, itemId, {
      assignee: memberId,
      assigned_by: memberId ? (principal.memberId ?? null) : null,
      assigned: Boolean(memberId),
    });
    await recordAudit(trx, {
      ...actorOf(principal),
      action: memberId ? 'inbox.assigned' : 'inbox.unassigned',
      resourceType: 'inboxItem',
      resourceId: itemId,
      details: { kind: item.kind, runId: item.runId, from: before.assignee, to: memberId },
    });
    return after;
  });
  publishChange(deps, principal.accountId, itemId);
  return { ...item, ...viewOfAssignment(row) };
}

function viewOfAssignment(row: Awaited<ReturnType<typeof updateAssignment>>) {
  const claimed = row.claimed_by && row.claim_expires_at && row.claim_expires_at.getTime() > Date.now();
  return {
    assignee: row.assignee,
    assignedBy: row.assignee ? row.assigned_by : null,
    claimedBy: claimed ? row.claimed_by : null,
    claimExpiresAt: claimed ? row.claim_expires_at!.toISOString() : null,
  };
}

/** 409 when another member holds a claim on the item that has not lapsed. */
export function refuseOthersClaim(
  a: { claimed_by: string | null; claim_expires_at: Date | null } | undefined,
  memberId: string,
) {
  if (a?.claimed_by && a.claimed_by !== memberId && a.claim_expires_at && a.claim_expires_at.getTime() > Date.now())
    throw conflict(
      `Member ${a.claimed_by} is working on this item until ${a.claim_expires_at.toISOString()} (or until they ` +
        'release it)',
      { claimedBy: a.claimed_by, claimExpiresAt: a.claim_expires_at.toISOString() },
    );
}

/** Claims the item for CLAIM_MINUTES (a claim again renews it); another member's live claim is 409. */
export async function claimItem(deps: Deps, principal: Principal, itemId: string, claim: boolean) {
  const me = memberOf(principal);
  const found = await fetchItem(deps, principal, itemId);
  assertMayAnswer(principal, found.detail.kind);
  const row = await deps.db.transaction(async (trx) => {
    const before = await lockAssignment(trx, principal.accountId, itemId);
    const live = before.claimed_by && before.claim_expires_at && before.claim_expires_at.getTime() > Date.now();
    if (claim) refuseOthersClaim(before, me);
    else if (!live) throw conflict(`Item ${itemId} is not claimed`);
    else if (before.claimed_by !== me && !principal.scopes.includes('approvals:write'))
      throw forbidden(`Only ${before.claimed_by}, or an owner, admin or approver, releases this claim`);
    const after = await updateAssignment(trx, principal.accountId, itemId, {
      claimed_by: claim ? me : null,
      claimMinutes: claim ? CLAIM_MINUTES : null,
    });
    await recordAudit(trx, {
      ...actorOf(principal),
      action: claim ? 'inbox.claimed' : 'inbox.released',
      resourceType: 'inboxItem',
      resourceId: itemId,
      details: { kind: found.detail.kind, runId: found.detail.runId, claimedBy: claim ? me : before.claimed_by },
    });
    return after;
  });
  publishChange(deps, principal.accountId, itemId);
  return { ...found.detail, ...viewOfAssignment(row) };
}

export async function readNotificationChoices(deps: Pick<Deps, 'db'>, principal: Principal) {
  const memberId = memberOf(principal);
  const row = await getChoices(deps.db, principal.accountId, memberId);
  return {
    memberId,
    choices: row?.choices ?? DEFAULT_CHOICES,
    events: [...NOTICE_EVENTS],
    updatedAt: row?.updated_at.toISOString() ?? null,
  };
}

export async function writeNotificationChoices(deps: Pick<Deps, 'db'>, principal: Principal, c: NotificationChoices) {
  const memberId = memberOf(principal);
  const [me] = await activeMembers(deps.db, principal.accountId, { ids: [memberId] });
  if (!me) throw forbidden(`Member ${memberId} is not active`);
  const row = await putChoices(deps.db, principal.accountId, memberId, c);
  return { memberId, choices: row.choices, events: [...NOTICE_EVENTS], updatedAt: row.updated_at.toISOString() };
}
