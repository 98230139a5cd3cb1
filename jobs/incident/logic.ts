import { createHash } from 'node:crypto';
import type { NormalizedAlert } from './alerts.js';
import type { IncidentReport } from './report.js';

/**
 * The record rules of incidents, pure: which incident an alert payload belongs to, whether its severity pages,
 * what a status update says, and the postmortem draft a resolved incident gets from its timeline.
 */

type Obj = Record<string, any>;
type Severity = IncidentReport['incident']['severity'];
const SEVERITY_RANK: Record<Severity, number> = { sev1: 1, sev2: 2, sev3: 3, sev4: 4 };

/**
 * The fingerprint an incident is deduplicated by: the Alertmanager group key when the payload is a webhook body (the
 * same group is the same incident however its alerts come and go), else the alert's own fingerprint or PagerDuty
 * `dedup_key` when one alert is given, else a digest of every alert's key (sorted: their order does not matter).
 * Null when nothing in the payload could be read.
 */
export function incidentFingerprint(items: Obj[], alerts: NormalizedAlert[]): string | null {
  const groupKeys = [...new Set(items.map((i) => i.groupKey).filter((k) => typeof k === 'string' && k))];
  if (groupKeys.length === 1) return `alertmanager:group:${groupKeys[0]}`.slice(0, 500);
  const keys = [...new Set(alerts.map((a) => `${a.source}:${a.key}`))].sort();
  if (keys.length === 0) return null;
  if (keys.length === 1 && keys[0]!.length <= 500) return keys[0]!;
  return `digest:${createHash('sha256').update(keys.join('\n')).digest('hex')}`;
}

/** sev1 and sev2 wake someone up: they page. sev3 and sev4 are recorded and posted, not paged. */
export const pages = (severity: string) => severity === 'sev1' || severity === 'sev2';

/** The worse of two severities: an incident's severity is raised by its alerts, never lowered by them. */
export const worseSeverity = (a: Severity, b: Severity): Severity => (SEVERITY_RANK[a] <= SEVERITY_RANK[b] ? a : b);

/** What one payload's alerts do to an open incident's status: all resolved → resolved; firing again → triggered. */
export function statusFromAlerts(current: string, alerts: NormalizedAlert[]): string | null {
  if (alerts.length === 0) return null;
  if (alerts.every((a) => a.status === 'resolved')) return current === 'resolved' ? null : 'resolved';
  return current === 'mitigated' ? 'triggered' : null;
}

/** The line a status update posts to the incident's chat channel. */
export function statusText(
  i: { id: string; title: string; severity: string; status: string },
  note?: string | null,
  link?: string,
): string {
  const verb: Record<string, string> = {
    triggered: 'opened',
    acknowledged: 'acknowledged',
    mitigated: 'mitigated',
    resolved: 'resolved',
  };
  return [
    `*[${i.severity.toUpperCase()}] Incident ${verb[i.status] ?? i.status}:* ${i.title}`,
    ...(note ? [note] : []),
    link ?? i.id,
  ].join('\n');
}

export interface TimelineItem {
  at: string;
  kind: string;
  text: string;
  actor: string | null;
}
export interface PostmortemInput {
  id: string;
  title: string;
  severity: string;
  severityRule: string;
  services: string[];
  roles: Array<{ role: string; assignee: string | null }>;
  startedAt: string | null;
  createdAt: string;
  acknowledgedAt: string | null;
  mitigatedAt: string | null;
  resolvedAt: string;
  approvals: Array<{ action: string; reason: string }>;
  runIds: string[];
}

const minutes = (from: string | null, to: string | null) =>
  from && to && Date.parse(to) >= Date.parse(from) ? Math.round((Date.parse(to) - Date.parse(from)) / 60_000) : null;
const said = (m: number | null) => (m === null ? 'not recorded' : `${m} min`);

/**
 * A blameless postmortem draft from the incident and its timeline: summary, impact, time to acknowledge, mitigate and
 * resolve, the timeline as it was recorded, the suspects the alerts pointed at as action items to review, and the
 * root cause left for a person to write (the draft never guesses one). `markdown` is the same, ready to paste.
 */
export function postmortemDraft(i: PostmortemInput, timeline: TimelineItem[]) {
  const start = i.startedAt ?? i.createdAt;
  const durations = {
    toAcknowledgeMinutes: minutes(start, i.acknowledgedAt),
    toMitigateMinutes: minutes(start, i.mitigatedAt),
    toResolveMinutes: minutes(start, i.resolvedAt),
  };
  const impact = { severity: i.severity, severityRule: i.severityRule, services: i.services };
  const lines = timeline.map((t) => ({ at: t.at, text: `${t.text}${t.actor ? ` (${t.actor})` : ''}` }));
  const who = i.roles.filter((r) => r.assignee).map((r) => `${r.role}: ${r.assignee}`);
  const actionItems = [
    ...i.approvals.map((a) => `Review: ${a.action} (${a.reason})`),
    ...(durations.toAcknowledgeMinutes === null ? ['Record who acknowledged the page and when'] : []),
    'Write the root cause and what would have caught it earlier',
  ];
  const rootCause = 'To be written: the timeline above is what was recorded; no cause is inferred.';
  const summary =
    `${i.severity.toUpperCase()} on ${i.services.join(', ') || 'unnamed services'} from ${start} to ${i.resolvedAt}` +
    ` (${said(durations.toResolveMinutes)}).`;
  const markdown = [
    `# Postmortem (draft): ${i.title}`,
    '',
    `## Summary`,
    summary,
    '',
    '## Impact',
    `- Severity: ${i.severity} (${i.severityRule})`,
    `- Services: ${i.services.join(', ') || 'none named'}`,
    '',
    '## Response',
    `- Time to acknowledge: ${said(durations.toAcknowledgeMinutes)}`,
    `- Time to mitigate: ${said(durations.toMitigateMinutes)}`,
    `- Time to resolve: ${said(durations.toResolveMinutes)}`,
    ...(who.length ? [`- Roles: ${who.join('; ')}`] : []),
    ...(i.runIds.length ? [`- Linked runs: ${i.runIds.join(', ')}`] : []),
    '',
    '## Timeline',
    ...lines.map((l) => `- ${l.at} — ${l.text}`),
    '',
    '## Root cause',
    rootCause,
    '',
    '## Action items',
    ...actionItems.map((a) => `- [ ] ${a}`),
  ].join('\n');
  return {
    title: `Postmortem (draft): ${i.title}`,
    status: 'draft' as const,
    summary,
    impact,
    durations,
    timeline: lines,
    rootCause,
    actionItems,
    markdown,
  };
}
