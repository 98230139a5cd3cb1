import type { Db } from '../../shared/db/knex.js';
import type { NotificationChoices } from './schemas.js';

/** All SQL of the inbox, on its own tables (README `Tables:`). */

export interface AssignmentRow {
  account_id: string;
  item_id: string;
  assignee: string | null;
  assigned_by: string | null;
  assigned_at: Date | null;
  claimed_by: string | null;
  claimed_at: Date | null;
  claim_expires_at: Date | null;
  updated_at: Date;
}

export async function assignmentsOf(db: Db, accountId: string, itemIds: string[]): Promise<AssignmentRow[]> {
  if (itemIds.length === 0) return [];
  return db('inbox_assignments').where({ account_id: accountId }).whereIn('item_id', itemIds);
}

/** The item's row under lock (made first when there is none), so two assigns or claims of one item take turns. */
export async function lockAssignment(trx: Db, accountId: string, itemId: string): Promise<AssignmentRow> {
  await trx('inbox_assignments').insert({ account_id: accountId, item_id: itemId }).onConflict().ignore();
  return trx('inbox_assignments').where({ account_id: accountId, item_id: itemId }).forUpdate().first();
}

export async function updateAssignment(
  trx: Db,
  accountId: string,
  itemId: string,
  change: Partial<Pick<AssignmentRow, 'assignee' | 'assigned_by' | 'claimed_by'>> & {
    assigned?: boolean;
    claimMinutes?: number | null;
  },
): Promise<AssignmentRow> {
  const { assigned, claimMinutes, ...fields } = change;
  const [row] = await trx('inbox_assignments')
    .where({ account_id: accountId, item_id: itemId })
    .update({
      ...fields,
      ...(assigned ? { assigned_at: trx.fn.now() } : {}),
      ...(claimMinutes === null ? { claimed_at: null, claim_expires_at: null } : {}),
      ...(claimMinutes
        ? {
            claimed_at: trx.fn.now(),
            claim_expires_at: trx.raw('now() + make_interval(mins => ?)', [claimMinutes]),
          }
        : {}),
      updated_at: trx.fn.now(),
    })
    .returning('*');
  return row;
}

/** Item ids assigned to `memberId` (or to anyone, without it): the `assignee` filter of the list. */
export async function assignedItemIds(db: Db, accountId: string, memberId?: string): Promise<string[]> {
  const q = db('inbox_assignments').where({ account_id: accountId }).whereNotNull('assignee');
  if (memberId) q.andWhere({ assignee: memberId });
  return (await q.select('item_id')).map((r: { item_id: string }) => r.item_id);
}

export interface FileRow {
  account_id: string;
  item_id: string;
  sha256: string;
  proof_item: string;
  name: string;
  content_type: string;
  size: number;
  data?: Buffer;
  created_by: string | null;
  created_at: Date;
}

const FILE_FIELDS = ['item_id', 'sha256', 'proof_item', 'name', 'content_type', 'size', 'created_by', 'created_at'];

/** Stores a file once per item and hash (the same bytes handed in twice are one file); true when it is new. */
export async function insertFile(db: Db, row: Omit<FileRow, 'created_at'> & { data: Buffer }): Promise<boolean> {
  const added = await db('inbox_files').insert(row).onConflict(['account_id', 'item_id', 'sha256']).ignore();
  return ((added as unknown as { rowCount?: number }).rowCount ?? 0) > 0;
}

export async function deleteFiles(db: Db, accountId: string, itemId: string, hashes: string[]): Promise<void> {
  if (hashes.length > 0)
    await db('inbox_files').where({ account_id: accountId, item_id: itemId }).whereIn('sha256', hashes).delete();
}

export async function filesOf(db: Db, accountId: string, itemId: string): Promise<FileRow[]> {
  return db('inbox_files')
    .where({ account_id: accountId, item_id: itemId })
    .orderBy('created_at')
    .select(FILE_FIELDS.map((f) => `${f}`));
}

export async function fileWithData(db: Db, accountId: string, itemId: string, sha256: string): Promise<FileRow | null> {
  return (await db('inbox_files').where({ account_id: accountId, item_id: itemId, sha256 }).first()) ?? null;
}

export async function getChoices(db: Db, accountId: string, memberId: string) {
  return (
    ((await db('inbox_preferences').where({ account_id: accountId, member_id: memberId }).first()) as
      { choices: NotificationChoices; updated_at: Date } | undefined) ?? null
  );
}

export async function choicesOfMembers(db: Db, accountId: string, memberIds: string[]) {
  if (memberIds.length === 0) return new Map<string, NotificationChoices>();
  const rows: Array<{ member_id: string; choices: NotificationChoices }> = await db('inbox_preferences')
    .where({ account_id: accountId })
    .whereIn('member_id', memberIds);
  return new Map(rows.map((r) => [r.member_id, r.choices]));
}

export async function putChoices(db: Db, accountId: string, memberId: string, choices: NotificationChoices) {
  const [row] = await db('inbox_preferences')
    .insert({ account_id: accountId, member_id: memberId, choices: JSON.stringify(choices) })
    .onConflict(['account_id', 'member_id'])
    .merge({ choices: JSON.stringify(choices), updated_at: db.fn.now() })
    .returning('*');
  return row as { choices: NotificationChoices; updated_at: Date };
}
