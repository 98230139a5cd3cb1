import { normalizeAlerts, type NormalizedAlert } from './alerts.js';

type Obj = Record<string, any>;
type Severity = 'sev1' | 'sev2' | 'sev3' | 'sev4';
type MutatingKind = 'rollback' | 'scale' | 'failover' | 'flagOff' | 'restart';

export interface IncidentReport {
  incident: {
    severity: Severity;
    severityRule: string;
    title: string;
    status: 'active' | 'resolved';
    services: string[];
    roles: Array<{ role: string; duty: string }>;
    startedAt: string | null;
  };
  alerts: NormalizedAlert[];
  unreadableAlerts: number[];
  timeline: Array<{ at: string; event: string; source: string }>;
  actions: Array<{ action: string; command: string | null; readOnly: true; service: string | null }>;
  approvals: Array<{ kind: MutatingKind; action: string; reason: string; service: string | null; performed: false }>;
}

/** Minutes before the first alert in which a deploy or a flag change is a suspect. */
export const SUSPECT_WINDOW_MINUTES = 60;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const time = (v: string | null | undefined) => (v && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : null);

/**
 * Severity by these rules, first match wins (the answer names the rule):
 * sev1 — a firing critical alert and customer impact (`signals.customerImpact`),
 *        an error rate of 5 % or more, or critical alerts on two or more services;
 * sev2 — a firing critical alert, an error rate of 1 % or more, or p95 latency at
 *        twice the baseline or more;
 * sev3 — any firing error or warning alert;
 * sev4 — only informational or resolved alerts.
 */
export function classify(firing: NormalizedAlert[], signals: Obj): { severity: Severity; rule: string } {
  const critical = firing.filter((a) => a.severity === 'critical');
  const criticalServices = new Set(critical.map((a) => a.service ?? a.name));
  const errorRate = num(signals.errorRate);
  const p95 = num(signals.latencyP95Ms);
  const baseline = num(signals.latencyBaselineMs);
  if (critical.length && signals.customerImpact === true)
    return { severity: 'sev1', rule: 'critical alert with customer impact' };
  if (errorRate !== null && errorRate >= 0.05)
    return { severity: 'sev1', rule: `error rate ${(errorRate * 100).toFixed(1)} % ≥ 5 %` };
  if (criticalServices.size >= 2)
    return { severity: 'sev1', rule: `critical alerts on ${criticalServices.size} services` };
  if (critical.length) return { severity: 'sev2', rule: 'a critical alert is firing' };
  if (errorRate !== null && errorRate >= 0.01)
    return { severity: 'sev2', rule: `error rate ${(errorRate * 100).toFixed(1)} % ≥ 1 %` };
  if (p95 !== null && baseline && p95 >= 2 * baseline)
    return { severity: 'sev2', rule: `p95 latency ${p95} ms ≥ twice the ${baseline} ms baseline` };
  if (firing.some((a) => a.severity === 'error' || a.severity === 'warning'))
    return { severity: 'sev3', rule: 'an error or warning alert is firing' };
  return { severity: 'sev4', rule: firing.length ? 'only informational alerts are firing' : 'no alert is firing' };
}

function roles(severity: Severity, services: string[]) {
  const out = [{ role: 'incidentCommander', duty: 'owns the response, decides and approves mutating actions' }];
  if (severity === 'sev1' || severity === 'sev2')
    out.push({ role: 'communicationsLead', duty: 'status page and stakeholder updates every 30 min' });
  for (const s of services) out.push({ role: `operationsLead:${s}`, duty: `diagnoses and proposes fixes for ${s}` });
  out.push({ role: 'scribe', duty: 'keeps the timeline and decisions' });
  return out;
}

/**
 * An incident from alerts and signals: severity by the rules above, title,
 * affected services, roles, a timeline (alerts, deploys, flag changes),
 * read-only diagnostics, and every mutating response as an approval that is
 * never performed here.
 */
export function respond(items: Obj[], signals: Obj = {}): IncidentReport {
  const { alerts, unreadable } = normalizeAlerts(items);
  const firing = alerts.filter((a) => a.status === 'firing');
  const { severity, rule } = classify(firing, signals);
  const services = [
    ...new Set((firing.length ? firing : alerts).map((a) => a.service).filter((s): s is string => Boolean(s))),
  ];
  const rank = { critical: 0, error: 1, warning: 2, info: 3 } as const;
  const top = [...(firing.length ? firing : alerts)].sort((a, b) => rank[a.severity] - rank[b.severity])[0];
  // The incident starts with its firing alerts; an alert that already resolved is history, not the start.
  const starts = (firing.length ? firing : alerts).map((a) => time(a.startsAt)).filter((t): t is number => t !== null);
  const firstAlert = starts.length ? Math.min(...starts) : null;

  const deploys = (Array.isArray(signals.deploys) ? signals.deploys : []).filter(
    (d: Obj) => d && typeof d.service === 'string',
  );
  const flags = (Array.isArray(signals.flags) ? signals.flags : []).filter((f: Obj) => f && typeof f.flag === 'string');
  const suspect = (at: unknown) =>
    firstAlert !== null &&
    time(String(at)) !== null &&
    time(String(at))! <= firstAlert &&
    firstAlert - time(String(at))! <= SUSPECT_WINDOW_MINUTES * 60_000;

  const timeline: IncidentReport['timeline'] = [
    ...alerts.flatMap((a) => [
      ...(a.startsAt
        ? [
            {
              at: a.startsAt,
              event: `${a.severity} alert ${a.name} fired${a.service ? ` on ${a.service}` : ''}: ${a.summary}`,
              source: a.source,
            },
          ]
        : []),
      ...(a.endsAt ? [{ at: a.endsAt, event: `alert ${a.name} resolved`, source: a.source }] : []),
    ]),
    ...deploys
      .filter((d: Obj) => time(d.at))
      .map((d: Obj) => ({
        at: String(d.at),
        event:
          `deploy of ` +
          `${d.service}${d.version ? ` ${d.version}` : ''}${
            suspect(d.at) ? ' (within the hour before ' + 'the first alert: suspect)' : ''
          }`,
        source: 'signals.deploys',
      })),
    ...flags
      .filter((f: Obj) => time(f.changedAt))
      .map((f: Obj) => ({
        at: String(f.changedAt),
        event: `feature flag ${f.flag} changed${suspect(f.changedAt) ? ' (suspect)' : ''}`,
        source: 'signals.flags',
      })),
  ].sort((a, b) => time(a.at)! - time(b.at)!);

  const actions: IncidentReport['actions'] = [];
  for (const a of firing) {
    if (a.link)
      actions.push({
        action: `Open the alert's graph for ${a.name}`,
        command: a.link,
        readOnly: true,
        service: a.service,
      });
    if (a.runbook)
      actions.push({
        action: `Follow the runbook of ${a.name}`,
        command: a.runbook,
        readOnly: true,
        service: a.service,
      });
  }
  for (const s of services) {
    const ns = firing.find((a) => a.service === s)?.labels.namespace ?? 'default';
    actions.push({
      action: `List the pods of ${s} and their restarts`,
      command: `kubectl -n ${ns} get pods -l app=${s} -o wide`,
      readOnly: true,
      service: s,
    });
    actions.push({
      action: `Read recent errors of ${s}`,
      command: `kubectl -n ${ns} logs -l app=${s} --since=30m --tail=200`,
      readOnly: true,
      service: s,
    });
    actions.push({
      action: `List recent rollouts of ${s}`,
      command: `kubectl -n ${ns} rollout history deployment/${s}`,
      readOnly: true,
      service: s,
    });
  }

  const approvals: IncidentReport['approvals'] = [];
  const gate = (kind: MutatingKind, action: string, reason: string, service: string | null) =>
    approvals.push({ kind, action, reason, service, performed: false });
  for (const d of deploys.filter((d: Obj) => suspect(d.at)))
    gate(
      'rollback',
      `Roll ${d.service} back${d.previousVersion ? ` to ${d.previousVersion}` : ' to its previous release'}`,
      `deployed${d.version ? ` ${d.version}` : ''} shortly before the first alert`,
      d.service,
    );
  for (const f of flags.filter((f: Obj) => suspect(f.changedAt)))
    gate(
      'flagOff',
      `Turn feature flag ${f.flag} off`,
      'changed shortly before the first alert',
      typeof f.service === 'string' ? f.service : null,
    );
  const text = (a: NormalizedAlert) => `${a.name} ${a.summary}`;
  for (const a of firing) {
    if (/saturat|cpu|queue|backlog|capacity|throttl|latency|connections? (exhaust|limit)/i.test(text(a)))
      gate('scale', `Scale ${a.service ?? a.name} out`, `${a.name} points at saturation`, a.service);
    if (/region|zone|primary|replica lag|datacenter|failover/i.test(text(a)) || signals.regionDown === true)
      gate(
        'failover',
        `Fail ${a.service ?? a.name} over to the standby`,
        `${a.name} points at a lost region or primary`,
        a.service,
      );
    if (/crashloop|oom|restart|deadlock|hung/i.test(text(a)))
      gate('restart', `Restart ${a.service ?? a.name}`, `${a.name} points at crashed or hung processes`, a.service);
  }
  const deduped = [...new Map(approvals.map((x) => [`${x.kind}:${x.service}`, x])).values()];

  const title =
    `${severity.toUpperCase()}: ` +
    `${top?.summary ?? 'no alert'}${services.length ? ` (${services.join(', ')})` : ''}`;
  return {
    incident: {
      severity,
      severityRule: rule,
      title,
      status: firing.length ? 'active' : 'resolved',
      services,
      roles: roles(severity, services),
      startedAt: firstAlert !== null ? new Date(firstAlert).toISOString() : null,
    },
    alerts,
    unreadableAlerts: unreadable,
    timeline,
    actions,
    approvals: deduped,
  };
}
