import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

export interface EnvelopeMove {
  from: string | null;
  to: string;
  at: string;
  actor: string;
  note: string | null;
}

export interface EnvelopeRow {
  id: string;
  account_id: string;
  plan_id: string | null;
  kind: string;
  sender: string;
  recipient: string;
  run_id: string | null;
  task_id: string | null;
  payload: Record<string, unknown>;
  status: string;
  result: Record<string, unknown> | null;
  error: string | null;
  history: EnvelopeMove[];
  created_at: Date;
  updated_at: Date;
}

export type NewEnvelope = Pick<
  EnvelopeRow,
  | 'id'
  | 'account_id'
  | 'plan_id'
  | 'kind'
  | 'sender'
  | 'recipient'
  | 'run_id'
  | 'task_id'
  | 'payload'
  | 'status'
  | 'history'
>;

/** Inserts envelopes in one statement (a plan's hand-offs land together or not at all). */
export async function insertEnvelopes(db: Db, rows: NewEnvelope[]): Promise<EnvelopeRow[]> {
  if (rows.length === 0) return [];
  const created: EnvelopeRow[] = await db('a2a_envelopes')
    .insert(rows.map((r) => ({ ...r, payload: JSON.stringify(r.payload), history: JSON.stringify(r.history) })))
    .returning('*');
  const order = new Map(rows.map((r, i) => [r.id, i]));
  return created.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

export async function getEnvelope(
  db: Db,
  accountId: string,
  msgId: string,
  forUpdate = false,
): Promise<EnvelopeRow | null> {
  const q = db('a2a_envelopes').where({ account_id: accountId, id: msgId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export interface EnvelopeFilter {
  status?: string;
  recipient?: string;
  runId?: string;
  taskId?: string;
  planId?: string;
}

export async function listEnvelopes(
  db: Db,
  accountId: string,
  filter: EnvelopeFilter,
  limit: number,
  cursor?: string,
): Promise<{ rows: EnvelopeRow[]; nextCursor: string | null }> {
  const q = db('a2a_envelopes').where({ account_id: accountId });
  if (filter.status) q.andWhere({ status: filter.status });
  if (filter.recipient) q.andWhere({ recipient: filter.recipient });
  if (filter.runId) q.andWhere({ run_id: filter.runId });
  if (filter.taskId) q.andWhere({ task_id: filter.taskId });
  if (filter.planId) q.andWhere({ plan_id: filter.planId });
  return page<EnvelopeRow>(q, limit, cursor);
}

/** Moves an envelope (its history gains the move in the same statement) and sets its result or error when given. */
export async function moveEnvelope(
  db: Db,
  msgId: string,
  change: { status: string; move: EnvelopeMove; result?: Record<string, unknown>; error?: string },
): Promise<EnvelopeRow> {
  const [row] = await db('a2a_envelopes')
    .where({ id: msgId })
    .update({
      status: change.status,
      history: db.raw('history || ?::jsonb', [JSON.stringify([change.move])]),
      updated_at: db.fn.now(),
      ...(change.result !== undefined ? { result: JSON.stringify(change.result) } : {}),
      ...(change.error !== undefined ? { error: change.error } : {}),
    })
    .returning('*');
  return row;
}
