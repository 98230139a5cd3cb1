import type { Db } from '../../shared/db/knex.js';
import { newId } from '../../shared/ids.js';
import type { Channel, NoticeEvent } from './schemas.js';

/** The notification outbox (inbox_notifications): one row per item event, member and channel. */

export interface NoticeRow {
  id: string;
  account_id: string;
  item_id: string;
  event: NoticeEvent;
  member_id: string;
  channel: Channel;
  status: 'pending' | 'sending' | 'sent' | 'skipped' | 'failed';
  message: {
    kind: 'choice' | 'approval' | 'mission';
    runId: string | null;
    gate: string | null;
    title: string;
    expiresAt: string | null;
  };
  bridge_action_id: string | null;
  attempts: number;
  error: string | null;
}

/** Writes the rows in the caller's transaction; a row already there (the same event noticed again) is kept. */
export async function insertNotices(
  trx: Db,
  rows: Array<Pick<NoticeRow, 'account_id' | 'item_id' | 'event' | 'member_id' | 'channel' | 'message'>>,
): Promise<number> {
  if (rows.length === 0) return 0;
  const added = await trx('inbox_notifications')
    .insert(rows.map((r) => ({ ...r, id: newId('ntf'), message: JSON.stringify(r.message) })))
    .onConflict(['account_id', 'item_id', 'event', 'member_id', 'channel'])
    .ignore()
    .returning('id');
  return added.length;
}

/**
 * Takes up to `limit` rows to send: pending ones, and ones a sender took more than `leaseSeconds` ago and never
 * settled (it died). SKIP LOCKED: two senders never take one row.
 */
export async function claimNotices(db: Db, limit: number, leaseSeconds: number): Promise<NoticeRow[]> {
  const result = await db.raw(
    `UPDATE inbox_notifications SET status = 'sending', claimed_at = now(), attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM inbox_notifications
       WHERE status = 'pending' OR (status = 'sending' AND claimed_at < now() - make_interval(secs => ?))
       ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [leaseSeconds, limit],
  );
  return result.rows;
}

/** Settles a row this sender holds (status `sending`); false when it is no longer its to settle. */
export async function settleNotice(
  db: Db,
  id: string,
  to: 'sent' | 'skipped' | 'failed' | 'pending',
  extra: { error?: string | null; bridgeActionId?: string } = {},
): Promise<boolean> {
  const n = await db('inbox_notifications')
    .where({ id, status: 'sending' })
    .update({
      status: to,
      error: extra.error ?? null,
      ...(extra.bridgeActionId ? { bridge_action_id: extra.bridgeActionId } : {}),
      ...(to === 'sent' ? { sent_at: db.fn.now() } : {}),
    });
  return n > 0;
}

/** Whether any row is still to send (the pump goes on while there are). */
export async function noticesDue(db: Db, leaseSeconds: number): Promise<boolean> {
  return Boolean(
    await db('inbox_notifications')
      .where({ status: 'pending' })
      .orWhere((q) => {
        void q
          .where({ status: 'sending' })
          .andWhereRaw('claimed_at < now() - make_interval(secs => ?)', [leaseSeconds]);
      })
      .first('id'),
  );
}

/** The notifications of an item (a test, an operator): what went out to whom. */
export async function noticesOf(db: Db, accountId: string, itemId: string): Promise<NoticeRow[]> {
  return db('inbox_notifications').where({ account_id: accountId, item_id: itemId }).orderBy('created_at');
}
