import { claimStalePending } from '../../shared/db/stale-pending.js';
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

export interface SignalRow {
  id: string;
  account_id: string;
  type: string;
  subject: string;
  value: unknown;
  source: string;
  source_id: string;
  observed_at: Date;
  created_at: Date;
}

export interface SignalRuleRow {
  id: string;
  account_id: string;
  name: string;
  signal_type: string;
  condition: Record<string, unknown> | null;
  target: Record<string, unknown>;
  status: string;
  dedup_window_seconds: number;
  max_runs_per_hour: number | null;
  /**
   * The member who wrote it and the scopes it acts within (jobs/automation/grant.ts); null before grants were recorded.
   */
  created_by: string | null;
  grant_scopes: string[] | null;
  created_at: Date;
  updated_at: Date;
}

export interface SignalMatchRow {
  id: string;
  account_id: string;
  signal_id: string;
  rule_id: string | null;
  subject: string;
  outcome: string;
  run_id: string | null;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Inserts a signal; null when its (source, sourceId) was seen before for the account. */
export async function insertSignal(db: Db, row: Omit<SignalRow, 'created_at'>): Promise<SignalRow | null> {
  const [created] = await db('signals')
    .insert({ ...row, value: JSON.stringify(row.value ?? null) })
    .onConflict(['account_id', 'source', 'source_id'])
    .ignore()
    .returning('*');
  return created ?? null;
}

export async function signalBySourceId(
  db: Db,
  accountId: string,
  source: string,
  sourceId: string,
): Promise<SignalRow | null> {
  return (await db('signals').where({ account_id: accountId, source, source_id: sourceId }).first()) ?? null;
}

export async function getSignal(db: Db, accountId: string, signalId: string): Promise<SignalRow | null> {
  return (await db('signals').where({ id: signalId, account_id: accountId }).first()) ?? null;
}

export async function listSignals(
  db: Db,
  accountId: string,
  f: { type?: string; subject?: string; observedFrom?: string; observedTo?: string; limit: number; cursor?: string },
) {
  const q = db('signals').where({ account_id: accountId });
  if (f.type) q.andWhere('type', f.type);
  if (f.subject) q.andWhere('subject', f.subject);
  if (f.observedFrom) q.andWhere('observed_at', '>=', f.observedFrom);
  if (f.observedTo) q.andWhere('observed_at', '<', f.observedTo);
  return page<SignalRow>(q, f.limit, f.cursor);
}

export async function insertRule(
  db: Db,
  row: Omit<SignalRuleRow, 'created_at' | 'updated_at'>,
): Promise<SignalRuleRow> {
  const [created] = await db('signal_rules')
    .insert({ ...row, condition: JSON.stringify(row.condition), target: JSON.stringify(row.target) })
    .returning('*');
  return created;
}

export async function getRule(
  db: Db,
  accountId: string,
  ruleId: string,
  forUpdate = false,
): Promise<SignalRuleRow | null> {
  const q = db('signal_rules').where({ id: ruleId, account_id: accountId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function listRules(db: Db, accountId: string, f: { signalType?: string; limit: number; cursor?: string }) {
  const q = db('signal_rules').where({ account_id: accountId });
  if (f.signalType) q.andWhere('signal_type', f.signalType);
  return page<SignalRuleRow>(q, f.limit, f.cursor);
}

export async function updateRule(
  db: Db,
  ruleId: string,
  patch: Partial<Omit<SignalRuleRow, 'id' | 'account_id' | 'created_at' | 'updated_at'>>,
): Promise<SignalRuleRow> {
  const encoded = {
    ...patch,
    ...('condition' in patch ? { condition: JSON.stringify(patch.condition) } : {}),
    ...(patch.target ? { target: JSON.stringify(patch.target) } : {}),
  };
  const [row] = await db('signal_rules')
    .where({ id: ruleId })
    .update({ ...encoded, updated_at: db.fn.now() })
    .returning('*');
  return row;
}

export async function deleteRule(db: Db, accountId: string, ruleId: string): Promise<boolean> {
  return (await db('signal_rules').where({ id: ruleId, account_id: accountId }).delete()) > 0;
}

/**
 * The account's active rules for a signal type, locked in id order so concurrent signals take them in one order (no
 * deadlock) and count their windows one at a time.
 */
export async function lockActiveRules(db: Db, accountId: string, signalType: string): Promise<SignalRuleRow[]> {
  return db('signal_rules')
    .where({ account_id: accountId, signal_type: signalType, status: 'active' })
    .orderBy('id')
    .forUpdate();
}

/**
 * What a rule's dedup window and rate limit read: matches that counted (not held back) for the subject within the
 * window, and runs started in the last hour.
 */
export async function recentMatches(
  db: Db,
  ruleId: string,
  subject: string,
  windowSeconds: number,
): Promise<{ sameSubjectInWindow: number; startedLastHour: number }> {
  const result = await db.raw(
    `SELECT count(*) FILTER (WHERE subject = ? AND created_at > now() - make_interval(secs => ?))::int AS same_subject,
            count(*) FILTER (WHERE outcome IN ('pending', 'started'))::int AS started
     FROM signal_matches
     WHERE rule_id = ? AND created_at > now() - make_interval(secs => greatest(?, 3600))
         AND outcome NOT IN ('deduplicated', 'rateLimited')`,
    [subject, windowSeconds, ruleId, windowSeconds],
  );
  return { sameSubjectInWindow: result.rows[0].same_subject, startedLastHour: result.rows[0].started };
}

export async function insertMatch(
  db: Db,
  row: Omit<SignalMatchRow, 'created_at' | 'updated_at' | 'run_id' | 'reason'> & { reason?: string | null },
): Promise<SignalMatchRow> {
  const [created] = await db('signal_matches').insert(row).returning('*');
  return created;
}

/** Records the outcome of a pending match; null when it was decided already. */
export async function settleMatch(
  db: Db,
  matchId: string,
  outcome: { outcome: string; runId: string | null; reason: string | null },
): Promise<SignalMatchRow | null> {
  const [row] = await db('signal_matches')
    .where({ id: matchId, outcome: 'pending' })
    .update({ outcome: outcome.outcome, run_id: outcome.runId, reason: outcome.reason, updated_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

export async function matchesOfSignal(db: Db, signalId: string): Promise<SignalMatchRow[]> {
  return db('signal_matches').where({ signal_id: signalId }).orderBy('id');
}

/** A match by id (its account comes with it): what a start that lost its settle to another reads back. */
export async function getMatch(db: Db, matchId: string): Promise<SignalMatchRow | null> {
  return (await db('signal_matches').where({ id: matchId }).first()) ?? null;
}

/** Matches still `pending` a while after their last touch (their start was lost), claimed for the sweep. */
export function claimStalePendingMatches(db: Db, olderThanSeconds: number, limit: number): Promise<SignalMatchRow[]> {
  return claimStalePending<SignalMatchRow>(db, 'signal_matches', olderThanSeconds, limit);
}
