import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

/** An Alertmanager webhook body (version 4) as Alertmanager POSTs it. */
const alertmanager = {
  version: '4',
  status: 'firing',
  receiver: 'awp',
  groupKey: '{}:{alertname="HighErrorRate"}',
  externalURL: 'http://alertmanager.example',
  commonLabels: { namespace: 'shop' },
  commonAnnotations: {},
  alerts: [
    {
      status: 'firing',
      labels: { alertname: 'HighErrorRate', severity: 'critical', service: 'checkout', namespace: 'shop' },
      annotations: { summary: 'Checkout 5xx above 4 %', runbook_url: 'https://runbooks.example/checkout-5xx' },
      startsAt: '2026-03-01T10:05:00Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example/graph?g0.expr=rate',
      fingerprint: 'a1',
    },
    {
      status: 'firing',
      labels: { alertname: 'CPUSaturation', severity: 'warning', service: 'checkout' },
      annotations: { summary: 'checkout CPU saturation at 95 %' },
      startsAt: '2026-03-01T10:07:00Z',
      fingerprint: 'a2',
    },
    {
      status: 'resolved',
      labels: { alertname: 'DiskFilling', severity: 'warning', service: 'search' },
      annotations: { summary: 'disk 85 %' },
      startsAt: '2026-03-01T09:00:00Z',
      endsAt: '2026-03-01T09:30:00Z',
      fingerprint: 'a3',
    },
  ],
};
/** A PagerDuty Events API v2 trigger. */
const pagerduty = {
  routing_key: 'R0UT1NGKEY',
  event_action: 'trigger',
  dedup_key: 'db-primary-1',
  payload: {
    summary: 'payments-db primary unreachable in eu-west-1',
    source: 'payments-db-1',
    severity: 'critical',
    component: 'payments',
    timestamp: '2026-03-01T10:06:00Z',
  },
};

const call = (token: string | undefined, body: unknown) =>
  harness.call('POST', '/v1/incident/respond', { token, body });

describe('incident: POST /v1/incident/respond', () => {
  let a: { token: string };
  before(async () => {
    a = await harness.account();
  });

  it(
    'Alertmanager and PagerDuty alerts: severity by rule, services, roles, timeline, read-only actions and ' +
      'gated mutations',
    async () => {
      const signals = {
        deploys: [
          { service: 'checkout', version: '4.2.0', previousVersion: '4.1.3', at: '2026-03-01T09:55:00Z' },
          { service: 'search', version: '1.0.1', at: '2026-02-28T12:00:00Z' },
        ],
        flags: [{ flag: 'new-pricing', changedAt: '2026-03-01T10:00:00Z', service: 'checkout' }],
      };
      const res = await call(a.token, { alerts: [alertmanager, pagerduty], signals });
      assert.equal(res.status, 200, res.text);
      const { incident, timeline, actions, approvals } = res.body;
      assert.equal(incident.severity, 'sev1');
      assert.equal(incident.severityRule, 'critical alerts on 2 services');
      assert.deepEqual(incident.services, ['checkout', 'payments']);
      assert.match(incident.title, /^SEV1: Checkout 5xx above 4 %/);
      assert.ok(incident.roles.some((r: any) => r.role === 'communicationsLead'));
      assert.deepEqual(
        timeline.map((t: any) => t.at),
        [...timeline.map((t: any) => t.at)].sort((x: string, y: string) => Date.parse(x) - Date.parse(y)),
        'in time order',
      );
      assert.ok(timeline.some((t: any) => /deploy of checkout 4.2.0 .*suspect/.test(t.event)));
      assert.ok(
        !timeline.some((t: any) => /deploy of search.*suspect/.test(t.event)),
        'a deploy the day before is no suspect',
      );
      assert.ok(actions.every((x: any) => x.readOnly === true));
      assert.ok(actions.some((x: any) => x.command === 'https://runbooks.example/checkout-5xx'));
      assert.ok(actions.some((x: any) => x.command === 'kubectl -n shop get pods -l app=checkout -o wide'));
      const kinds = approvals.map((x: any) => `${x.kind}:${x.service}`).sort();
      assert.deepEqual(kinds, ['failover:payments', 'flagOff:checkout', 'rollback:checkout', 'scale:checkout']);
      assert.equal(approvals.find((x: any) => x.kind === 'rollback').action, 'Roll checkout back to 4.1.3');
      assert.ok(approvals.every((x: any) => x.performed === false));
    },
  );

  it(
    'severity rules: sev2 for one critical alert, sev3 ' + 'for a warning, sev4 once resolved; signals raise it',
    async () => {
      const one = (await call(a.token, { alerts: [pagerduty] })).body.incident;
      assert.deepEqual([one.severity, one.severityRule], ['sev2', 'a critical alert is firing']);
      const impact = (await call(a.token, { alerts: [pagerduty], signals: { customerImpact: true } })).body.incident;
      assert.equal(impact.severity, 'sev1');
      const warn = { ...alertmanager, alerts: [alertmanager.alerts[1]] };
      assert.equal((await call(a.token, { alerts: [warn] })).body.incident.severity, 'sev3');
      assert.equal(
        (await call(a.token, { alerts: [warn], signals: { errorRate: 0.02 } })).body.incident.severity,
        'sev2',
      );
      assert.equal(
        (await call(a.token, { alerts: [warn], signals: { latencyP95Ms: 900, latencyBaselineMs: 300 } })).body.incident
          .severityRule,
        'p95 latency 900 ms ≥ twice the 300 ms baseline',
      );
      const resolved = { ...pagerduty, event_action: 'resolve' };
      const done = (await call(a.token, { alerts: [pagerduty, resolved] })).body;
      assert.deepEqual(
        [done.incident.severity, done.incident.status, done.alerts.length],
        ['sev4', 'resolved', 1],
        'the same dedup_key is one alert, its latest state winning',
      );
    },
  );

  it('unreadable alerts are named; 400 without alerts, 401 without a token', async () => {
    const res = await call(a.token, { alerts: [{ hello: 'world' }, pagerduty] });
    assert.deepEqual(res.body.unreadableAlerts, [0]);
    assert.equal((await call(a.token, { signals: {} })).status, 400);
    assert.equal((await call(a.token, { alerts: 'firing' })).status, 400);
    assert.equal((await call(undefined, { alerts: [] })).status, 401);
  });
});
