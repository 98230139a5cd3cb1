import assert from 'node:assert/strict';
import { providerConnector } from '../support/bridge.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { startPagerDutyFake, type PagerDutyFake } from '../support/pagerduty-fake.js';
import { startSlackFake, type SlackFake } from '../support/slack-fake.js';

const ROUTING_KEY = 'R0UT1NGKEY0000000000000000000000';
const BOT_TOKEN = 'xoxb-incident-flow-0000000000';

/** One Alertmanager webhook body (its group key is the incident's fingerprint), firing or resolved. */
const alert = (status: 'firing' | 'resolved', groupKey = '{}:{alertname="CheckoutErrors"}') => ({
  version: '4',
  status,
  receiver: 'awp',
  groupKey,
  alerts: [
    {
      status,
      labels: { alertname: 'CheckoutErrors', severity: 'critical', service: 'checkout' },
      annotations: { summary: 'Checkout 5xx above 4 %' },
      startsAt: '2026-03-01T10:05:00Z',
      endsAt: status === 'resolved' ? '2026-03-01T10:40:00Z' : '0001-01-01T00:00:00Z',
      fingerprint: 'f1',
    },
  ],
});

/**
 * Incidents through the real queue and worker: the alert opens one incident however often it repeats, the page and
 * the status updates are bridge actions the bridge worker sends to PagerDuty's and Slack's fakes, and resolving
 * drafts the postmortem from the timeline.
 */
describe('incidents: one incident per alert, paged once, status posted to chat, postmortem when resolved', function () {
  this.timeout(60_000);
  let pd: PagerDutyFake;
  let slack: SlackFake;
  let token: string;
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) => harness.call(method, path, { token, body });
  const respond = (body: Record<string, unknown>) => call('POST', '/v1/incident/respond', body);
  const action = async (id: string) => (await call('GET', `/v1/bridge/actions/${id}`)).body.action;
  const settled = (id: string) =>
    until(
      () => action(id),
      (a) => a?.status === 'succeeded' || a?.status === 'failed',
      20_000,
    );
  const posted = (word: string) => slack.messages.filter((m) => m.text.includes(`Incident ${word}:`));

  before(async () => {
    pd = await startPagerDutyFake({ routingKey: ROUTING_KEY });
    slack = await startSlackFake({ token: BOT_TOKEN });
    ({ token } = await harness.account());
    await providerConnector(
      token,
      { name: 'pd-routing', kind: 'bearer', value: ROUTING_KEY },
      { connectorId: 'pd', kind: 'pagerduty', caps: ['incident.page'], endpoint: pd.url },
    );
    await providerConnector(
      token,
      { name: 'slack-bot', kind: 'bearer', value: BOT_TOKEN },
      { connectorId: 'slack', kind: 'slack', caps: ['msg.chat'], endpoint: slack.url },
    );
  });
  after(async () => {
    await pd?.stop();
    await slack?.stop();
  });

  let incidentId: string;

  it('an alert repeated 5 times (at once) opens one incident and pages PagerDuty once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => respond({ alerts: [alert('firing')], chat: { channel: '#ops' } })),
    );
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const ids = new Set(answers.map((a) => a.body.record.incidentId));
    assert.equal(ids.size, 1, 'one incident');
    assert.equal(answers.filter((a) => a.body.created).length, 1, 'opened by one request');
    incidentId = [...ids][0] as string;
    const listed = (await call('GET', '/v1/incidents')).body.incidents;
    assert.equal(listed.length, 1);
    assert.deepEqual([listed[0].status, listed[0].severity, listed[0].alertCount], ['triggered', 'sev2', 5]);
    const pageId = listed[0].paged.actionId as string;
    assert.equal((await settled(pageId)).status, 'succeeded');
    // Once more, after the page went out: still the same incident, no second page.
    const again = await respond({ alerts: [alert('firing')] });
    assert.equal(again.body.record.incidentId, incidentId);
    assert.equal(again.body.record.alertCount, 6);
    await until(
      () => posted('opened').length,
      (n) => n === 1,
    );
    assert.equal(pd.events.filter((e) => e.event_action === 'trigger').length, 1, 'one trigger sent');
    assert.equal(pd.opened(), 1);
    assert.equal(pd.events[0]!.dedup_key, `awp-${incidentId}`);
    assert.equal(pd.events[0]!.payload!.severity, 'error');
    const timeline = (await call('GET', `/v1/incidents/${incidentId}`)).body.incident.timeline;
    assert.equal(timeline.filter((t: any) => t.kind === 'alert').length, 1, 'the repeated alert is one entry');
    assert.equal(timeline.filter((t: any) => t.kind === 'page').length, 1);
  });

  it('acknowledging posts one status update to Slack and acknowledges the page; a second is 409', async () => {
    const ack = await call('POST', `/v1/incidents/${incidentId}/status`, { status: 'acknowledged', note: 'on it' });
    assert.equal(ack.status, 200, ack.text);
    assert.equal(ack.body.incident.status, 'acknowledged');
    await until(
      () => posted('acknowledged').length,
      (n) => n === 1,
    );
    const [message] = posted('acknowledged');
    assert.equal(message!.channel, 'C0OPS');
    assert.match(message!.text, /on it/);
    await until(
      () => pd.incidents.get(`awp-${incidentId}`)?.status,
      (s) => s === 'acknowledged',
    );
    const twice = await call('POST', `/v1/incidents/${incidentId}/status`, { status: 'acknowledged' });
    assert.equal(twice.status, 409, twice.text);
    assert.deepEqual(twice.body.details.allowed, ['mitigated', 'resolved']);
    await call('POST', `/v1/incidents/${incidentId}/roles`, { role: 'incidentCommander', assignee: 'olga' });
    await call('POST', `/v1/incidents/${incidentId}/notes`, { text: 'rolled checkout back to 4.1.3' });
    // Give a second post the time the first one took; there is none.
    await settled(`bac_${incidentId.replace(/^inc_/, '')}_c2`);
    assert.equal(posted('acknowledged').length, 1);
  });

  it('the alerts resolving resolve the incident: PagerDuty resolved, Slack told, postmortem drafted', async () => {
    const res = await respond({ alerts: [alert('resolved')] });
    assert.equal(res.status, 200, res.text);
    const record = res.body.record;
    assert.equal(record.incidentId, incidentId);
    assert.equal(record.status, 'resolved');
    const pm = record.postmortem;
    assert.equal(pm.status, 'draft');
    const texts = pm.timeline.map((t: any) => t.text).join('\n');
    assert.match(texts, /critical alert CheckoutErrors fired on checkout/);
    assert.match(texts, /triggered → acknowledged: on it/);
    assert.match(texts, /incidentCommander assigned to olga/);
    assert.match(texts, /rolled checkout back to 4\.1\.3/);
    assert.match(pm.markdown, /^# Postmortem \(draft\): /);
    assert.match(pm.markdown, /Roles: incidentCommander: olga/);
    assert.equal(typeof pm.durations.toAcknowledgeMinutes, 'number');
    await until(
      () => posted('resolved').length,
      (n) => n === 1,
    );
    await until(
      () => pd.incidents.get(`awp-${incidentId}`)?.status,
      (s) => s === 'resolved',
    );
    // The alert firing again later is a new incident (the resolved one is closed for good).
    const later = await respond({ alerts: [alert('firing')] });
    assert.equal(later.body.created, true);
    assert.notEqual(later.body.record.incidentId, incidentId);
  });
});
