import type { Db, Knex } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

/** Every SQL statement of channels: threads, touchpoints, provider callbacks and a thread's timeline. */

export interface ThreadRow {
  id: string;
  account_id: string;
  external_key: string | null;
  channel: string;
  subject: string | null;
  participants: Array<Record<string, unknown>>;
  case_id: string | null;
  conversation_id: string | null;
  mission_id: string | null;
  provider_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** Set by `upsertThread`: true when this call created the row. */
  created?: boolean;
}

export type ThreadFields = Pick<
  ThreadRow,
  'channel' | 'subject' | 'participants' | 'case_id' | 'conversation_id' | 'mission_id' | 'provider_id'
>;

/**
 * Creates a thread, or (same account and `external_key`) updates the one
 * there, keeping its id: the fields given replace the stored ones, refs not
 * given stay. `created` says which happened (xmax is 0 for a fresh row).
 */
export async function upsertThread(
  db: Db,
  t: ThreadFields & { id: string; account_id: string; external_key: string | null },
): Promise<ThreadRow> {
  const cols = { ...t, participants: JSON.stringify(t.participants) };
  if (!t.external_key) {
    const [row] = await db('channel_threads').insert(cols).returning('*');
    return { ...row, created: true };
  }
  const result = await db.raw(
    `INSERT INTO channel_threads (id, account_id, external_key, channel, subject, participants, case_id,
        conversation_id, mission_id, provider_id)
     VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?)
     ON CONFLICT (account_id, external_key) DO UPDATE SET
       channel = excluded.channel, subject = coalesce(excluded.subject, channel_threads.subject),
           participants = excluded.participants,
       case_id = coalesce(excluded.case_id, channel_threads.case_id), conversation_id =
           coalesce(excluded.conversation_id, channel_threads.conversation_id),
       mission_id = coalesce(excluded.mission_id, channel_threads.mission_id),
           provider_id = coalesce(excluded.provider_id, channel_threads.provider_id),
       updated_at = now()
     RETURNING *, (xmax = 0) AS created`,
    [
      cols.id,
      cols.account_id,
      cols.external_key,
      cols.channel,
      cols.subject,
      cols.participants,
      cols.case_id,
      cols.conversation_id,
      cols.mission_id,
      cols.provider_id,
    ],
  );
  return result.rows[0];
}

export async function getThread(db: Db, accountId: string, threadId: string): Promise<ThreadRow | null> {
  return (await db('channel_threads').where({ account_id: accountId, id: threadId }).first()) ?? null;
}

export interface ThreadFilter {
  channel?: string;
  caseId?: string;
  conversationId?: string;
  missionId?: string;
  providerId?: string;
}

export async function listThreads(db: Db, accountId: string, f: ThreadFilter, limit: number, cursor?: string) {
  const q = db('channel_threads').where({ account_id: accountId });
  if (f.channel) q.andWhere({ channel: f.channel });
  if (f.caseId) q.andWhere({ case_id: f.caseId });
  if (f.conversationId) q.andWhere({ conversation_id: f.conversationId });
  if (f.missionId) q.andWhere({ mission_id: f.missionId });
  if (f.providerId) q.andWhere({ provider_id: f.providerId });
  return page<ThreadRow>(q, limit, cursor);
}

export interface TouchpointRow {
  id: string;
  account_id: string;
  thread_id: string;
  direction: string;
  status: string;
  body: string | null;
  data: Record<string, unknown>;
  case_id: string | null;
  conversation_id: string | null;
  provider_id: string | null;
  at: Date;
  created_at: Date;
}

export type NewTouchpoint = Omit<TouchpointRow, 'created_at' | 'at'> & { at?: Date };

export async function insertTouchpoint(db: Db, t: NewTouchpoint): Promise<TouchpointRow> {
  const [row] = await db('channel_touchpoints')
    .insert({ ...t, data: JSON.stringify(t.data), ...(t.at ? { at: t.at } : {}) })
    .returning('*');
  return row;
}

export async function getTouchpoint(db: Db, accountId: string, id: string): Promise<TouchpointRow | null> {
  return (await db('channel_touchpoints').where({ account_id: accountId, id }).first()) ?? null;
}

export interface TouchpointFilter {
  threadId?: string;
  caseId?: string;
  conversationId?: string;
  providerId?: string;
  status?: string;
}

export async function listTouchpoints(db: Db, accountId: string, f: TouchpointFilter, limit: number, cursor?: string) {
  const q = db('channel_touchpoints').where({ account_id: accountId });
  if (f.threadId) q.andWhere({ thread_id: f.threadId });
  if (f.caseId) q.andWhere({ case_id: f.caseId });
  if (f.conversationId) q.andWhere({ conversation_id: f.conversationId });
  if (f.providerId) q.andWhere({ provider_id: f.providerId });
  if (f.status) q.andWhere({ status: f.status });
  return page<TouchpointRow>(q, limit, cursor);
}

export interface CallbackRow {
  id: string;
  account_id: string;
  connector_pk: string | null;
  connector_id: string;
  external_id: string;
  kind: string;
  status: string | null;
  signature: string;
  refs: Record<string, string>;
  payload: unknown;
  thread_id: string | null;
  reconciliation: Record<string, unknown> | null;
  reconciled_at: Date | null;
  received_at: Date;
}

export type NewCallback = Omit<CallbackRow, 'reconciliation' | 'reconciled_at' | 'received_at'>;

/**
 * Stores a callback; null when the connector sent this external id before (a provider's retry), so it is reconciled
 * once.
 */
export async function insertCallback(db: Db, c: NewCallback): Promise<CallbackRow | null> {
  const [row] = await db('channel_callbacks')
    .insert({ ...c, refs: JSON.stringify(c.refs), payload: JSON.stringify(c.payload) })
    .onConflict(['account_id', 'connector_id', 'external_id'])
    .ignore()
    .returning('*');
  return row ?? null;
}

export async function callbackByExternalId(
  db: Db,
  accountId: string,
  connectorId: string,
  externalId: string,
  forUpdate = false,
): Promise<CallbackRow | null> {
  const q = db('channel_callbacks')
    .where({ account_id: accountId, connector_id: connectorId, external_id: externalId })
    .first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function markReconciled(
  db: Db,
  id: string,
  reconciliation: Record<string, unknown>,
): Promise<CallbackRow> {
  const [row] = await db('channel_callbacks')
    .where({ id })
    .update({ reconciliation: JSON.stringify(reconciliation), reconciled_at: db.fn.now() })
    .returning('*');
  return row;
}

export async function listCallbacks(
  db: Db,
  accountId: string,
  f: { connectorId?: string; kind?: string; threadId?: string },
  limit: number,
  cursor?: string,
) {
  const q = db('channel_callbacks').where({ account_id: accountId });
  if (f.connectorId) q.andWhere({ connector_id: f.connectorId });
  if (f.kind) q.andWhere({ kind: f.kind });
  if (f.threadId) q.andWhere({ thread_id: f.threadId });
  return page<CallbackRow>(q, limit, cursor);
}

export interface TimelineRow {
  at: Date;
  kind: 'touchpoint' | 'action' | 'callback';
  ref: string;
  status: string | null;
  detail: string | null;
}

/**
 * A thread's touchpoints, bridge actions and callbacks in one ascending
 * order of `at` (ids break ties: they sort by creation), at most `limit`
 * entries after `after` (the last entry's `at`|`ref` of the page before).
 */
export async function threadTimeline(
  db: Db,
  threadId: string,
  /** The thread's bridge actions (created_at, id, status, capability): the bridge module's subquery. */
  actions: Knex.QueryBuilder,
  limit: number,
  after?: { at: Date; ref: string },
): Promise<TimelineRow[]> {
  const tail = after ? 'WHERE (at, ref) > (?, ?)' : '';
  const result = await db.raw(
    `SELECT * FROM (
       SELECT at, 'touchpoint' AS kind, id AS ref, status, direction AS detail FROM channel_touchpoints
           WHERE thread_id = ?
       UNION ALL
       SELECT created_at AS at, 'action' AS kind, id AS ref, status, capability AS detail FROM ? actions
       UNION ALL
       SELECT received_at AS at, 'callback' AS kind, id AS ref, status, kind AS detail FROM channel_callbacks
           WHERE thread_id = ?
     ) entries ${tail} ORDER BY at, ref LIMIT ?`,
    [threadId, actions, threadId, ...(after ? [after.at, after.ref] : []), limit],
  );
  return result.rows;
}
