import type { IncidentDetailRecord } from './service.js';
import type { IncidentRow } from './repository.js';

/** Incidents as the API shows them (schemas.ts: Incident, IncidentDetail). */
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function incidentView(r: IncidentRow) {
  return {
    incidentId: r.id,
    fingerprint: r.fingerprint,
    title: r.title,
    status: r.status,
    severity: r.severity,
    severityRule: r.severity_rule,
    services: r.services,
    roles: r.roles.map((x) => ({ role: x.role, duty: x.duty ?? null, assignee: x.assignee ?? null })),
    alertCount: r.alert_count,
    paged: r.page_action_id ? { actionId: r.page_action_id } : null,
    chat: r.chat ? { channel: r.chat.channel, connectorId: r.chat.connectorId ?? null } : null,
    postmortem: r.postmortem ?? null,
    startedAt: iso(r.started_at),
    acknowledgedAt: iso(r.acknowledged_at),
    mitigatedAt: iso(r.mitigated_at),
    resolvedAt: iso(r.resolved_at),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export function incidentDetail(d: IncidentDetailRecord) {
  return {
    ...incidentView(d.row),
    timeline: d.timeline.map((t) => ({ at: t.at.toISOString(), kind: t.kind, text: t.text, actor: t.actor })),
    runIds: d.runIds,
  };
}
