import type { Db } from '../../../shared/db/knex.js';
import { page } from '../../../shared/db/page.js';

/** Every SQL statement of a case's parts: stakeholders, deadlines and action items. */

export interface StakeholderRow {
  id: string;
  case_id: string;
  account_id: string;
  name: string;
  role: string;
  email: string | null;
  phone: string | null;
  organisation: string | null;
  created_at: Date;
}

/**
 * Writes a stakeholder unless its case has one with the same email or phone: then null (the unique indexes decide, so
 * racing adds make one).
 */
export async function insertStakeholder(db: Db, s: Omit<StakeholderRow, 'created_at'>): Promise<StakeholderRow | null> {
  const result = await db.raw(
    `INSERT INTO case_stakeholders (id, case_id, account_id, name, role, email, phone, organisation) VALUES ` +
      `(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *`,
    [s.id, s.case_id, s.account_id, s.name, s.role, s.email, s.phone, s.organisation],
  );
  return result.rows[0] ?? null;
}

/** The case's stakeholder with this email or phone (the one a duplicate collides with). */
export async function stakeholderByContact(
  db: Db,
  caseId: string,
  contact: { email: string | null; phone: string | null },
): Promise<StakeholderRow | null> {
  const q = db('case_stakeholders')
    .where({ case_id: caseId })
    .andWhere((b) => {
      if (contact.email) b.orWhere({ email: contact.email });
      if (contact.phone) b.orWhere({ phone: contact.phone });
    });
  return (await q.first()) ?? null;
}

export async function caseStakeholders(db: Db, caseId: string): Promise<StakeholderRow[]> {
  return db('case_stakeholders').where({ case_id: caseId }).orderBy('id');
}

export interface DeadlineRow {
  id: string;
  case_id: string;
  account_id: string;
  title: string;
  due_at: Date;
  owner: string | null;
  status: string;
  settled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertDeadline(
  db: Db,
  d: Pick<DeadlineRow, 'id' | 'case_id' | 'account_id' | 'title' | 'owner' | 'status'> & { due_at: string },
): Promise<DeadlineRow> {
  const [row] = await db('case_deadlines').insert(d).returning('*');
  return row;
}

export async function getDeadline(
  db: Db,
  caseId: string,
  deadlineId: string,
  forUpdate = false,
): Promise<DeadlineRow | null> {
  const q = db('case_deadlines').where({ case_id: caseId, id: deadlineId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** The case's deadlines, soonest first. */
export async function caseDeadlines(db: Db, caseId: string): Promise<DeadlineRow[]> {
  return db('case_deadlines')
    .where({ case_id: caseId })
    .orderBy([{ column: 'due_at' }, { column: 'id' }]);
}

export async function updateDeadline(
  db: Db,
  deadlineId: string,
  patch: { status?: string; title?: string; due_at?: string; owner?: string | null; settled?: boolean },
): Promise<DeadlineRow> {
  const { settled, ...fields } = patch;
  const [row] = await db('case_deadlines')
    .where({ id: deadlineId })
    .update({ ...fields, ...(settled ? { settled_at: db.fn.now() } : {}), updated_at: db.fn.now() })
    .returning('*');
  return row;
}

/**
 * Marks the case's open deadlines that are past due `missed`, in one statement, and returns them: each is marked once,
 * whoever reviews.
 */
export async function markOverdueMissed(db: Db, caseId: string): Promise<DeadlineRow[]> {
  return db('case_deadlines')
    .where({ case_id: caseId, status: 'open' })
    .andWhere('due_at', '<', db.fn.now())
    .update({ status: 'missed', settled_at: db.fn.now(), updated_at: db.fn.now() })
    .returning('*');
}

/** Cases with open deadlines past due, across accounts: the clock reviews each. */
export async function casesWithOverdueDeadlines(
  db: Db,
  limit: number,
): Promise<Array<{ case_id: string; account_id: string }>> {
  return db('case_deadlines')
    .where({ status: 'open' })
    .andWhere('due_at', '<', db.fn.now())
    .distinct('case_id', 'account_id')
    .limit(limit);
}

export interface ActionRow {
  id: string;
  case_id: string;
  account_id: string;
  title: string;
  description: string | null;
  status: string;
  owner: string | null;
  due_at: Date | null;
  refs: Array<{ kind: string; id: string }>;
  created_at: Date;
  updated_at: Date;
}

export async function insertAction(
  db: Db,
  a: Pick<ActionRow, 'id' | 'case_id' | 'account_id' | 'title' | 'description' | 'status' | 'owner' | 'refs'> & {
    due_at: string | null;
  },
): Promise<ActionRow> {
  const [row] = await db('case_actions')
    .insert({ ...a, refs: JSON.stringify(a.refs) })
    .returning('*');
  return row;
}

export async function getAction(
  db: Db,
  caseId: string,
  actionId: string,
  forUpdate = false,
): Promise<ActionRow | null> {
  const q = db('case_actions').where({ case_id: caseId, id: actionId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function updateAction(
  db: Db,
  actionId: string,
  patch: { status?: string; title?: string; owner?: string | null; due_at?: string | null; refs?: ActionRow['refs'] },
): Promise<ActionRow> {
  const [row] = await db('case_actions')
    .where({ id: actionId })
    .update({
      ...patch,
      ...(patch.refs ? { refs: JSON.stringify(patch.refs) } : {}),
      updated_at: db.fn.now(),
    })
    .returning('*');
  return row;
}

export async function listActions(
  db: Db,
  caseId: string,
  filter: { status?: string },
  limit: number,
  cursor?: string,
): Promise<{ rows: ActionRow[]; nextCursor: string | null }> {
  const q = db('case_actions').where({ case_id: caseId });
  if (filter.status) q.andWhere({ status: filter.status });
  return page<ActionRow>(q, limit, cursor);
}

/** The case's action items in the given statuses, oldest first (the open ones a case fetch embeds). */
export async function actionsIn(db: Db, caseId: string, statuses: readonly string[]): Promise<ActionRow[]> {
  return db('case_actions').where({ case_id: caseId }).whereIn('status', statuses).orderBy('id');
}
