import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';
import { newId } from '../../shared/ids.js';

/** Every SQL statement of incidents: the record, its timeline and its linked runs. */

export interface IncidentRow {
  id: string;
  account_id: string;
  fingerprint: string;
  open_key: string | null;
  title: string;
  status: string;
  severity: string;
  severity_rule: string;
  services: string[];
  roles: Array<{ role: string; duty: string | null; assignee: string | null }>;
  alerts: unknown[];
  approvals: Array<{ kind: string; action: string; reason: string; service: string | null }>;
  alert_count: number;
  chat: { channel: string; connectorId: string | null } | null;
  chat_seq: number;
  page_action_id: string | null;
  postmortem: Record<string, unknown> | null;
  started_at: Date | null;
  acknowledged_at: Date | null;
  mitigated_at: Date | null;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface TimelineRow {
  id: string;
  incident_id: string;
  account_id: string;
  at: Date;
  kind: string;
  text: string;
  actor: string | null;
  dedup: string | null;
  data: Record<string, unknown> | null;
}

const JSON_FIELDS = ['services', 'roles', 'alerts', 'approvals', 'chat', 'postmortem'] as const;
const encode = (row: Record<string, unknown>) => {
  const out = { ...row };
  for (const f of JSON_FIELDS) if (out[f] !== undefined && out[f] !== null) out[f] = JSON.stringify(out[f]);
  return out;
};

/**
 * Opens an incident unless one of its fingerprint is open in the account: null then (the caller reads and updates
 * that one). One statement: two requests racing on one alert make one incident.
 */
export async function insertIncident(
  db: Db,
  row: Omit<IncidentRow, 'created_at' | 'updated_at' | 'chat_seq' | 'postmortem' | 'page_action_id'> &
    Partial<IncidentRow>,
): Promise<IncidentRow | null> {
  const [made] = await db('incidents')
    .insert(encode(row as unknown as Record<string, unknown>))
    .onConflict(['account_id', 'open_key'])
    .ignore()
    .returning('*');
  return (made as IncidentRow | undefined) ?? null;
}

export async function getIncident(db: Db, accountId: string, id: string, forUpdate = false) {
  const q = db('incidents').where({ account_id: accountId, id }).first();
  if (forUpdate) q.forUpdate();
  return ((await q) as IncidentRow | undefined) ?? null;
}

export async function getOpenIncident(db: Db, accountId: string, fingerprint: string, forUpdate = false) {
  const q = db('incidents').where({ account_id: accountId, open_key: fingerprint }).first();
  if (forUpdate) q.forUpdate();
  return ((await q) as IncidentRow | undefined) ?? null;
}

export async function updateIncident(db: Db, id: string, patch: Partial<IncidentRow>): Promise<IncidentRow> {
  const [row] = await db('incidents')
    .where({ id })
    .update({ ...encode(patch as Record<string, unknown>), updated_at: db.fn.now() })
    .returning('*');
  return row as IncidentRow;
}

export async function listIncidents(
  db: Db,
  accountId: string,
  filter: { status?: string },
  limit: number,
  cursor?: string,
): Promise<{ rows: IncidentRow[]; nextCursor: string | null }> {
  const q = db('incidents').where({ account_id: accountId });
  if (filter.status) q.andWhere({ status: filter.status });
  return page<IncidentRow>(q, limit, cursor);
}

/** Appends entries; one with a `dedup` key the incident has already is skipped (an alert repeated). */
export async function appendTimeline(
  db: Db,
  entries: Array<Omit<TimelineRow, 'id' | 'dedup' | 'data'> & { dedup?: string | null; data?: unknown }>,
): Promise<number> {
  if (entries.length === 0) return 0;
  const rows = await db('incident_timeline')
    .insert(
      entries.map((e) => ({
        ...e,
        id: newId('itl'),
        dedup: e.dedup ?? null,
        data: e.data === undefined ? null : JSON.stringify(e.data),
      })),
    )
    .onConflict(['incident_id', 'dedup'])
    .ignore()
    .returning('id');
  return rows.length;
}

/** The timeline oldest first (the order it happened; ties in the order written). */
export async function timelineOf(db: Db, incidentId: string, limit = 1000): Promise<TimelineRow[]> {
  return db('incident_timeline')
    .where({ incident_id: incidentId })
    .orderBy([{ column: 'at' }, { column: 'id' }])
    .limit(limit);
}

/** Links runs; returns the ones newly linked (a repeated link adds nothing). */
export async function linkRuns(db: Db, accountId: string, incidentId: string, runIds: string[]): Promise<string[]> {
  if (runIds.length === 0) return [];
  const rows: Array<{ run_id: string }> = await db('incident_runs')
    .insert(runIds.map((run_id) => ({ incident_id: incidentId, run_id, account_id: accountId })))
    .onConflict(['incident_id', 'run_id'])
    .ignore()
    .returning('run_id');
  return rows.map((r) => r.run_id);
}

export async function runsOf(db: Db, incidentId: string): Promise<string[]> {
  const rows: Array<{ run_id: string }> = await db('incident_runs')
    .where({ incident_id: incidentId })
    .orderBy('linked_at')
    .select('run_id');
  return rows.map((r) => r.run_id);
}
