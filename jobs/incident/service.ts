import { createHash } from 'node:crypto';
import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { ActionRow } from '../bridge/index.js';
import { findRun } from '../orchestrator/index.js';
import { entry, page, postStatus, queueAfterCommit, type Change, type Entry } from './effects.js';
import { incidentFingerprint, postmortemDraft, statusFromAlerts, worseSeverity } from './logic.js';
import { INCIDENTS } from './machine.js';
import { respond, type IncidentReport } from './report.js';
import {
  appendTimeline,
  getIncident,
  getOpenIncident,
  insertIncident,
  linkRuns,
  listIncidents,
  runsOf,
  timelineOf,
  updateIncident,
  type IncidentRow,
} from './repository.js';
import type { IncidentRespondBody } from './schemas.js';

/**
 * Incidents as records: `POST /v1/incident/respond` opens the incident of an alert's fingerprint or updates the open
 * one, and the routes move it (acknowledge, mitigate, resolve), assign its roles and add notes. Every change is one
 * transaction with its timeline entries and the bridge actions it sends (effects.ts); a resolved incident gets its
 * postmortem draft in the same transaction.
 */

type Severity = IncidentReport['incident']['severity'];
const actorOf = (p: Principal) => (p.memberId ? `member:${p.memberId}` : `token:${p.tokenId}`);
const chatOf = (chat: IncidentRespondBody['chat']) =>
  chat ? { channel: chat.channel, connectorId: chat.connectorId ?? null } : null;

/** The one way an incident's status changes (409 for a move the table does not have), with what it sends. */
async function transition(c: Change, row: IncidentRow, to: string, actor: string, note: string | null) {
  INCIDENTS.assertMove(row.status, to, `Incident ${row.id}`);
  const now = new Date();
  let next: IncidentRow = {
    ...row,
    status: to,
    ...(to === 'acknowledged' ? { acknowledged_at: now } : {}),
    ...(to === 'mitigated' ? { mitigated_at: now } : {}),
    ...(to === 'resolved' ? { resolved_at: now, open_key: null } : {}),
  };
  c.entries.push(entry(row, 'status', `${row.status} → ${to}${note ? `: ${note}` : ''}`, actor));
  if (to === 'acknowledged' || to === 'resolved')
    next = await page(c, next, to === 'resolved' ? 'resolve' : 'acknowledge');
  next = await postStatus(c, next, note);
  return next;
}

/** Writes the change: the row, then the timeline, then (resolved) the postmortem drafted from that timeline. */
async function save(c: Change, before: IncidentRow, row: IncidentRow): Promise<IncidentRow> {
  const { id, account_id, created_at, updated_at, ...patch } = row;
  (void account_id, created_at, updated_at);
  let saved = await updateIncident(c.trx, id, patch);
  await appendTimeline(c.trx, c.entries);
  if (saved.status === 'resolved' && before.status !== 'resolved') {
    const timeline = await timelineOf(c.trx, id);
    const postmortem = postmortemDraft(
      {
        id,
        title: saved.title,
        severity: saved.severity,
        severityRule: saved.severity_rule,
        services: saved.services,
        roles: saved.roles,
        startedAt: saved.started_at?.toISOString() ?? null,
        createdAt: saved.created_at.toISOString(),
        acknowledgedAt: saved.acknowledged_at?.toISOString() ?? null,
        mitigatedAt: saved.mitigated_at?.toISOString() ?? null,
        resolvedAt: saved.resolved_at!.toISOString(),
        approvals: saved.approvals,
        runIds: await runsOf(c.trx, id),
      },
      timeline.map((t) => ({ at: t.at.toISOString(), kind: t.kind, text: t.text, actor: t.actor })),
    );
    saved = await updateIncident(c.trx, id, { postmortem });
  }
  return saved;
}

const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

function fromReport(row: IncidentRow, report: IncidentReport): Entry[] {
  return report.timeline.map((t) =>
    entry(row, t.source.startsWith('signals') ? 'signal' : 'alert', t.event, t.source, {
      at: new Date(t.at),
      dedup: digest(`${t.at}|${t.event}`),
    }),
  );
}

/** Runs to link must be the account's (404 otherwise). */
async function checkedRuns(deps: Deps, accountId: string, runIds: string[] = []) {
  for (const runId of runIds) await findRun(deps, accountId, runId);
  return runIds;
}

/** `POST /v1/incident/respond`: the report, and the incident it opened or updated (null: nothing open to update). */
export async function respondToAlerts(deps: Deps, principal: Principal, body: IncidentRespondBody) {
  const report = respond(body.alerts, body.signals ?? {});
  const fingerprint = incidentFingerprint(body.alerts, report.alerts);
  if (!fingerprint)
    throw invalidPayload('No alert in `alerts` could be read (Alertmanager webhook or alert, PagerDuty event)', {
      path: '/alerts',
      unreadable: report.unreadableAlerts,
    });
  const { accountId } = principal;
  const runIds = await checkedRuns(deps, accountId, body.runIds);
  const firing = report.alerts.some((a) => a.status === 'firing');
  const queue: ActionRow[] = [];
  const result = await deps.db.transaction(async (trx) => {
    const c: Change = { deps, trx, queue, entries: [] };
    let row = await getOpenIncident(trx, accountId, fingerprint, true);
    let created = false;
    if (!row && !firing) return { row: null, created };
    if (!row) {
      const i = report.incident;
      row = await insertIncident(trx, {
        id: newId('inc'),
        account_id: accountId,
        fingerprint,
        open_key: fingerprint,
        title: i.title,
        status: 'triggered',
        severity: i.severity,
        severity_rule: i.severityRule,
        services: i.services,
        roles: i.roles.map((r) => ({ role: r.role, duty: r.duty, assignee: null })),
        alerts: report.alerts,
        approvals: report.approvals,
        alert_count: 0,
        chat: chatOf(body.chat),
        started_at: i.startedAt ? new Date(i.startedAt) : null,
        acknowledged_at: null,
        mitigated_at: null,
        resolved_at: null,
      });
      created = Boolean(row);
      // Another request opened it first: update that one (its row lock waits for that request's commit).
      row ??= await getOpenIncident(trx, accountId, fingerprint, true);
      if (!row) throw new Error(`incident of ${fingerprint} neither inserted nor found`);
    }
    const before = row;
    let next: IncidentRow = { ...row, alert_count: row.alert_count + 1 };
    if (created) {
      c.entries.push(entry(row, 'status', `incident opened: ${row.title} (${row.severity_rule})`, 'alerts'));
      next = await page(c, next, 'trigger');
      next = await postStatus(c, next, null);
    } else {
      const merged = new Map(
        (row.alerts as Array<{ source: string; key: string }>).map((a) => [`${a.source}:${a.key}`, a]),
      );
      for (const a of report.alerts) merged.set(`${a.source}:${a.key}`, a);
      next.alerts = [...merged.values()];
      next.services = [...new Set([...row.services, ...report.incident.services])];
      next.chat ??= chatOf(body.chat);
      if (firing) {
        const worse = worseSeverity(row.severity as Severity, report.incident.severity);
        if (worse !== row.severity) {
          c.entries.push(entry(row, 'severity', `severity raised ${row.severity} → ${worse}`, 'alerts'));
          next = {
            ...next,
            severity: worse,
            severity_rule: report.incident.severityRule,
            title: report.incident.title,
          };
          next = await page(c, next, 'trigger');
        }
      }
      const to = statusFromAlerts(row.status, report.alerts);
      if (to)
        next = await transition(
          c,
          next,
          to,
          'alerts',
          to === 'resolved' ? 'its alerts resolved' : 'its alert fired again',
        );
    }
    c.entries.push(...fromReport(row, report));
    for (const runId of await linkRuns(trx, accountId, row.id, runIds))
      c.entries.push(entry(row, 'run', `run ${runId} linked`, actorOf(principal)));
    return { row: await save(c, before, next), created };
  });
  await queueAfterCommit(deps, queue);
  return { report, created: result.created, record: result.row ? await detail(deps.db, result.row) : null };
}

async function detail(db: Db, row: IncidentRow) {
  return { row, timeline: await timelineOf(db, row.id), runIds: await runsOf(db, row.id) };
}
export type IncidentDetailRecord = Awaited<ReturnType<typeof detail>>;

async function change(
  deps: Deps,
  principal: Principal,
  incidentId: string,
  act: (c: Change, row: IncidentRow) => Promise<IncidentRow>,
) {
  const queue: ActionRow[] = [];
  const row = await deps.db.transaction(async (trx) => {
    const found = await getIncident(trx, principal.accountId, incidentId, true);
    if (!found) throw notFound(`Incident ${incidentId}`);
    const c: Change = { deps, trx, queue, entries: [] };
    return save(c, found, await act(c, found));
  });
  await queueAfterCommit(deps, queue);
  return detail(deps.db, row);
}

export const moveIncident = (deps: Deps, p: Principal, id: string, to: string, note?: string) =>
  change(deps, p, id, (c, row) => transition(c, row, to, actorOf(p), note ?? null));

export const assignRole = (deps: Deps, p: Principal, id: string, role: string, assignee: string | null) =>
  change(deps, p, id, async (c, row) => {
    const known = row.roles.find((r) => r.role === role);
    const roles = known
      ? row.roles.map((r) => (r.role === role ? { ...r, assignee } : r))
      : [...row.roles, { role, duty: null, assignee }];
    c.entries.push(entry(row, 'role', assignee ? `${role} assigned to ${assignee}` : `${role} unassigned`, actorOf(p)));
    return { ...row, roles };
  });

export const addNote = (deps: Deps, p: Principal, id: string, text: string) =>
  change(deps, p, id, async (c, row) => {
    c.entries.push(entry(row, 'note', text, actorOf(p)));
    return row;
  });

export async function fetchIncident(deps: Deps, p: Principal, id: string) {
  const row = await getIncident(deps.db, p.accountId, id);
  if (!row) throw notFound(`Incident ${id}`);
  return detail(deps.db, row);
}

export const findIncidents = (deps: Deps, p: Principal, q: { status?: string; limit?: number; cursor?: string }) =>
  listIncidents(deps.db, p.accountId, { status: q.status }, q.limit ?? 50, q.cursor);
