/** Alerts as they arrive (Alertmanager webhook, PagerDuty Events v2), read into one shape. */

export type AlertSeverity = 'critical' | 'error' | 'warning' | 'info';

export interface NormalizedAlert {
  source: 'alertmanager' | 'pagerduty';
  name: string;
  status: 'firing' | 'resolved';
  severity: AlertSeverity;
  service: string | null;
  summary: string;
  startsAt: string | null;
  endsAt: string | null;
  /** Alertmanager fingerprint or PagerDuty dedup_key: the same alert seen twice is one alert. */
  key: string;
  runbook: string | null;
  link: string | null;
  labels: Record<string, string>;
}

type Obj = Record<string, any>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** Alertmanager severities vary by team (`page`, `high`, `P1`...): mapped onto the four PagerDuty levels. */
export function severityOf(raw: unknown): AlertSeverity {
  const s = String(raw ?? '').toLowerCase();
  if (/^(critical|crit|page|p1|sev1|fatal|emergency|disaster)$/.test(s)) return 'critical';
  if (/^(error|err|high|major|p2|sev2)$/.test(s)) return 'error';
  if (/^(warning|warn|medium|minor|p3|sev3|average)$/.test(s)) return 'warning';
  return 'info';
}

function fromAlertmanager(a: Obj, group: Obj): NormalizedAlert {
  const labels: Record<string, string> = { ...(group.commonLabels ?? {}), ...(a.labels ?? {}) };
  const annotations: Obj = { ...(group.commonAnnotations ?? {}), ...(a.annotations ?? {}) };
  const endsAt = str(a.endsAt);
  return {
    source: 'alertmanager',
    name: labels.alertname ?? 'alert',
    status: a.status === 'resolved' || (group.status === 'resolved' && !a.status) ? 'resolved' : 'firing',
    severity: severityOf(labels.severity ?? labels.priority),
    service: labels.service ?? labels.app ?? labels.job ?? null,
    summary: str(annotations.summary) ?? str(annotations.description) ?? labels.alertname ?? 'alert',
    startsAt: str(a.startsAt),
    endsAt: endsAt && !endsAt.startsWith('0001-') ? endsAt : null,
    key: str(a.fingerprint) ?? JSON.stringify(labels),
    runbook: str(annotations.runbook_url) ?? str(annotations.runbook),
    link: str(a.generatorURL) ?? str(group.externalURL),
    labels,
  };
}

function fromPagerDuty(e: Obj): NormalizedAlert {
  const p: Obj = e.payload ?? {};
  return {
    source: 'pagerduty',
    name: str(p.class) ?? str(p.summary) ?? 'event',
    status: e.event_action === 'resolve' ? 'resolved' : 'firing',
    severity: severityOf(p.severity),
    service: str(p.component) ?? str(p.source) ?? str(p.group),
    summary: str(p.summary) ?? 'PagerDuty event',
    startsAt: str(p.timestamp),
    endsAt: e.event_action === 'resolve' ? str(p.timestamp) : null,
    key: str(e.dedup_key) ?? JSON.stringify(p),
    runbook: null,
    link: str(e.links?.[0]?.href) ?? str(e.client_url),
    labels: Object.fromEntries(
      Object.entries(p.custom_details ?? {}).filter(([, v]) => typeof v === 'string'),
    ) as Record<string, string>,
  };
}

/**
 * Reads each item as an Alertmanager webhook (with `alerts`), a single
 * Alertmanager alert (with `labels`) or a PagerDuty Events v2 event (with
 * `event_action` and `payload`); anything else is reported as unreadable.
 * The same alert twice (fingerprint, dedup key) counts once, its latest state winning.
 */
export function normalizeAlerts(items: Obj[]): { alerts: NormalizedAlert[]; unreadable: number[] } {
  const out = new Map<string, NormalizedAlert>();
  const unreadable: number[] = [];
  items.forEach((item, i) => {
    let read: NormalizedAlert[] = [];
    if (Array.isArray(item.alerts))
      read = item.alerts.filter((a: unknown) => a && typeof a === 'object').map((a: Obj) => fromAlertmanager(a, item));
    else if (item.labels && typeof item.labels === 'object') read = [fromAlertmanager(item, {})];
    else if (typeof item.event_action === 'string' && item.payload && typeof item.payload === 'object')
      read = [fromPagerDuty(item)];
    if (read.length === 0) unreadable.push(i);
    for (const a of read) out.set(`${a.source}:${a.key}`, a);
  });
  return { alerts: [...out.values()], unreadable };
}
