import type { Deps } from '../../../shared/deps.js';
import {
  getAction,
  getDeadline,
  insertAction,
  insertDeadline,
  insertStakeholder,
  listActions,
  stakeholderByContact,
  updateAction,
  updateDeadline,
  type ActionRow,
  type DeadlineRow,
  type StakeholderRow,
} from './parts-repository.js';
import { iso } from '../../../shared/db/knex.js';
import { recordEvent } from '../../../shared/db/outbox.js';
import { conflict, invalidPayload, notFound } from '../../../shared/errors.js';
import { newId } from '../../../shared/ids.js';
import type { Principal } from '../../../shared/schemas/auth.js';
import type { ActionCreate, ActionUpdate, DeadlineUpdate, StakeholderCreate } from './schemas.js';
import { changedFields, contactIdentity } from './logic.js';
import { ACTIONS, DEADLINES } from './machines.js';
import { actorOf, afterCommit, checkRefs, lockCase, ownCase, writeEntry } from './workspace.js';

/**
 * A case's parts: stakeholders, deadlines and action items; each change is on the case's timeline in the same
 * transaction.
 */

export async function addStakeholder(
  deps: Deps,
  principal: Principal,
  caseId: string,
  body: StakeholderCreate,
): Promise<StakeholderRow> {
  const contact = contactIdentity(body.contact);
  if (contact.badPhone)
    throw invalidPayload('contact.phone is not a possible phone number in international form (+...)', [
      { path: '/contact/phone', message: 'not a possible phone number (use +<country code>...)', keyword: 'phone' },
    ]);
  if (!contact.email && !contact.phone)
    throw invalidPayload('A stakeholder needs a contact: an email or a phone', [
      { path: '/contact', message: 'needs email or phone', keyword: 'required' },
    ]);
  return deps.db.transaction(async (trx) => {
    const row = await lockCase(trx, principal.accountId, caseId);
    const added = await insertStakeholder(trx, {
      id: newId('stk'),
      case_id: row.id,
      account_id: row.account_id,
      name: body.name,
      role: body.role,
      email: contact.email,
      phone: contact.phone,
      organisation: body.organisation ?? null,
    });
    if (!added) {
      const existing = await stakeholderByContact(trx, row.id, contact);
      throw conflict(`The case already has a stakeholder with this contact${existing ? ` (${existing.name})` : ''}`, {
        stakeholderId: existing?.id ?? null,
      });
    }
    await writeEntry(trx, row, {
      kind: 'stakeholder.added',
      actor: actorOf(principal),
      text: `${added.name} added as ${added.role}`,
      data: { stakeholderId: added.id, role: added.role },
    });
    return added;
  });
}

export async function addDeadline(
  deps: Deps,
  principal: Principal,
  caseId: string,
  body: { title: string; dueAt: string; owner?: string },
): Promise<DeadlineRow> {
  return deps.db.transaction(async (trx) => {
    const row = await lockCase(trx, principal.accountId, caseId);
    const deadline = await insertDeadline(trx, {
      id: newId('ddl'),
      case_id: row.id,
      account_id: row.account_id,
      title: body.title,
      due_at: body.dueAt,
      owner: body.owner ?? null,
      status: 'open',
    });
    await writeEntry(trx, row, {
      kind: 'deadline.added',
      actor: actorOf(principal),
      text: `Deadline "${deadline.title}" due ${iso(deadline.due_at)}`,
      data: { deadlineId: deadline.id, dueAt: iso(deadline.due_at) },
    });
    return deadline;
  });
}

/**
 * A client's change to a deadline (added route): met or waived through the table (409 otherwise), a new title, due time
 * or owner.
 */
export async function updateDeadlineByClient(
  deps: Deps,
  principal: Principal,
  caseId: string,
  deadlineId: string,
  body: DeadlineUpdate,
): Promise<DeadlineRow> {
  return deps.db.transaction(async (trx) => {
    const row = await lockCase(trx, principal.accountId, caseId);
    const deadline = await getDeadline(trx, row.id, deadlineId, true);
    if (!deadline) throw notFound(`Deadline ${deadlineId} of case ${caseId}`);
    if (body.status && body.status !== deadline.status)
      DEADLINES.assertMove(deadline.status, body.status, 'A deadline');
    const patch = {
      status: body.status,
      title: body.title,
      due_at: body.dueAt ? new Date(body.dueAt).toISOString() : undefined,
      owner: body.owner,
    };
    const changes = changedFields({ ...deadline, due_at: iso(deadline.due_at) }, patch);
    if (changes.length === 0) return deadline;
    const updated = await updateDeadline(trx, deadline.id, {
      ...Object.fromEntries(changes.map((k) => [k, patch[k as keyof typeof patch]])),
      settled: changes.includes('status'),
    });
    const names = changes.map((k) => (k === 'due_at' ? 'dueAt' : k));
    const what = changes.includes('status') ? `${deadline.status} → ${updated.status}` : `changed ${names.join(', ')}`;
    const text = `Deadline "${updated.title}": ${what}${body.note ? ` (${body.note})` : ''}`;
    await writeEntry(trx, row, {
      kind: 'deadline.updated',
      actor: actorOf(principal),
      text,
      data: { deadlineId, changes: names, status: updated.status },
    });
    return updated;
  });
}

export async function addAction(
  deps: Deps,
  principal: Principal,
  caseId: string,
  body: ActionCreate,
): Promise<ActionRow> {
  await checkRefs(deps.db, principal.accountId, body.refs);
  return deps.db.transaction(async (trx) => {
    const row = await lockCase(trx, principal.accountId, caseId);
    const action = await insertAction(trx, {
      id: newId('cact'),
      case_id: row.id,
      account_id: row.account_id,
      title: body.title,
      description: body.description ?? null,
      status: 'open',
      owner: body.owner ?? null,
      due_at: body.dueAt ?? null,
      refs: body.refs ?? [],
    });
    await writeEntry(trx, row, {
      kind: 'action.added',
      actor: actorOf(principal),
      text: `Action "${action.title}" added`,
      refs: action.refs,
      data: { actionId: action.id },
    });
    return action;
  });
}

export async function findActions(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  caseId: string,
  query: { status?: string; limit?: number; cursor?: string },
) {
  const row = await ownCase(deps.db, principal.accountId, caseId);
  return listActions(deps.db, row.id, query, query.limit ?? 50, query.cursor);
}

/**
 * Moves an action item through its table (409 with the allowed moves otherwise) and changes its title, owner, due date
 * or refs; `case.action.updated` when anything changed.
 */
export async function updateActionByClient(
  deps: Deps,
  principal: Principal,
  caseId: string,
  actionId: string,
  body: ActionUpdate,
): Promise<ActionRow> {
  await checkRefs(deps.db, principal.accountId, body.refs);
  return afterCommit(
    deps,
    await deps.db.transaction(async (trx) => {
      const row = await lockCase(trx, principal.accountId, caseId);
      const action = await getAction(trx, row.id, actionId, true);
      if (!action) throw notFound(`Action ${actionId} of case ${caseId}`);
      if (body.status && body.status !== action.status)
        ACTIONS.assertMove(action.status, body.status, 'An action item');
      const patch = {
        status: body.status,
        title: body.title,
        owner: body.owner,
        due_at: body.dueAt === undefined ? undefined : body.dueAt && new Date(body.dueAt).toISOString(),
        refs: body.refs,
      };
      const changes = changedFields({ ...action, due_at: iso(action.due_at) }, patch);
      if (changes.length === 0) return { value: action, deliveries: 0 };
      const updated = await updateAction(
        trx,
        action.id,
        Object.fromEntries(changes.map((k) => [k, patch[k as keyof typeof patch]])),
      );
      const names = changes.map((k) => (k === 'due_at' ? 'dueAt' : k));
      const moved = updated.status !== action.status ? { from: action.status } : {};
      const what = moved.from ? `${action.status} → ${updated.status}` : `changed ${names.join(', ')}`;
      const text = `Action "${updated.title}": ${what}${body.note ? ` (${body.note})` : ''}`;
      await writeEntry(trx, row, {
        kind: 'action.updated',
        actor: actorOf(principal),
        text,
        refs: updated.refs,
        data: { actionId, changes: names, status: updated.status },
      });
      const { deliveries } = await recordEvent(trx, {
        accountId: row.account_id,
        type: 'case.action.updated',
        subject: row.id,
        payload: { caseId: row.id, actionId, status: updated.status, ...moved, changes: names },
      });
      return { value: updated, deliveries };
    }),
  );
}
