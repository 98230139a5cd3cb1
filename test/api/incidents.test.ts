import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

/** A PagerDuty Events v2 trigger: its dedup_key is the incident's fingerprint. */
const trigger = (dedupKey: string, severity = 'warning') => ({
  event_action: 'trigger',
  dedup_key: dedupKey,
  payload: { summary: `disk filling on ${dedupKey}`, source: 'db-2', severity, component: 'db' },
});

/**
 * The incident record routes, each: success, 400, 401, 404, and another account's incident answered 404. No
 * connector is configured here: nothing is paged or posted (the flow test does that).
 */
describe('incidents: the record routes', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  let incidentId: string;
  let bIncident: string;
  const call = (token: string | undefined, method: 'GET' | 'POST', path: string, body?: unknown) =>
    harness.call(method, path, { token, body });
  const open = async (token: string, key: string, extra: Record<string, unknown> = {}) => {
    const res = await call(token, 'POST', '/v1/incident/respond', { alerts: [trigger(key)], ...extra });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  before(async () => {
    a = await harness.account();
    b = await harness.account();
    incidentId = (await open(a.token, 'api-1')).record.incidentId;
    bIncident = (await open(b.token, 'api-1')).record.incidentId;
  });

  describe('POST /v1/incident/respond', () => {
    it('opens a record, links runs, and is deduplicated by the dedup key', async () => {
      const run = await call(a.token, 'POST', '/v1/orchestrator/run', {
        request: 'triage these alerts',
        domainRoute: ['incident'],
      });
      assert.ok([200, 202].includes(run.status), run.text);
      const body = await open(a.token, 'api-1', { runIds: [run.body.runId] });
      assert.equal(body.created, false);
      assert.equal(body.record.incidentId, incidentId, 'the same dedup key in one account: the same incident');
      assert.deepEqual(body.record.runIds, [run.body.runId]);
      assert.notEqual(bIncident, incidentId, 'the same dedup key in another account: its own incident');
      assert.deepEqual([body.record.severity, body.record.paged], ['sev3', null], 'sev3 does not page');
    });
    it('400 for a payload with no readable alert; 404 for a run not yours; 401 without a token', async () => {
      const none = await call(a.token, 'POST', '/v1/incident/respond', { alerts: [{ hello: 'world' }] });
      assert.equal(none.status, 400, none.text);
      const badChat = await call(a.token, 'POST', '/v1/incident/respond', {
        alerts: [trigger('x')],
        chat: { channel: '' },
      });
      assert.equal(badChat.status, 400, badChat.text);
      const otherRun = await call(b.token, 'POST', '/v1/orchestrator/run', {
        request: 'triage',
        domainRoute: ['incident'],
      });
      const foreign = await call(a.token, 'POST', '/v1/incident/respond', {
        alerts: [trigger('api-1')],
        runIds: [otherRun.body.runId],
      });
      assert.equal(foreign.status, 404, foreign.text);
      assert.equal(
        (await call(a.token, 'POST', '/v1/incident/respond', { alerts: [trigger('api-1')], runIds: ['run_nope'] }))
          .status,
        404,
      );
      assert.equal((await call(undefined, 'POST', '/v1/incident/respond', { alerts: [trigger('x')] })).status, 401);
    });
  });

  describe('GET /v1/incidents', () => {
    it("lists the account's incidents only, filtered by status", async () => {
      const res = await call(a.token, 'GET', '/v1/incidents?status=triggered&limit=10');
      assert.equal(res.status, 200, res.text);
      const ids = res.body.incidents.map((i: any) => i.incidentId);
      assert.ok(ids.includes(incidentId));
      assert.ok(!ids.includes(bIncident), "another account's incident is not listed");
      const resolved = await call(a.token, 'GET', '/v1/incidents?status=resolved');
      assert.ok(!resolved.body.incidents.some((i: any) => i.incidentId === incidentId));
    });
    it('400 for an unknown status or limit, 401 without a token', async () => {
      assert.equal((await call(a.token, 'GET', '/v1/incidents?status=closed')).status, 400);
      assert.equal((await call(a.token, 'GET', '/v1/incidents?limit=0')).status, 400);
      assert.equal((await call(undefined, 'GET', '/v1/incidents')).status, 401);
    });
  });

  describe('GET /v1/incidents/{incidentId}', () => {
    it('answers the incident with its timeline', async () => {
      const res = await call(a.token, 'GET', `/v1/incidents/${incidentId}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.incident.incidentId, incidentId);
      assert.ok(res.body.incident.timeline.some((t: any) => t.kind === 'status' && /incident opened/.test(t.text)));
    });
    it("404 for an unknown id and another account's incident; 401 without a token; 400 for a bad id", async () => {
      assert.equal((await call(a.token, 'GET', '/v1/incidents/inc_nope')).status, 404);
      assert.equal((await call(a.token, 'GET', `/v1/incidents/${bIncident}`)).status, 404);
      assert.equal((await call(undefined, 'GET', `/v1/incidents/${incidentId}`)).status, 401);
      assert.equal((await call(a.token, 'GET', `/v1/incidents/${'x'.repeat(201)}`)).status, 400);
    });
  });

  describe('POST /v1/incidents/{incidentId}/status', () => {
    it('moves through the table; a move it does not have is 409', async () => {
      const id = (await open(a.token, 'api-status')).record.incidentId;
      const m = await call(a.token, 'POST', `/v1/incidents/${id}/status`, { status: 'mitigated', note: 'failed over' });
      assert.equal(m.status, 200, m.text);
      assert.equal(m.body.incident.status, 'mitigated');
      assert.ok(m.body.incident.mitigatedAt);
      const back = await call(a.token, 'POST', `/v1/incidents/${id}/status`, { status: 'acknowledged' });
      assert.equal(back.status, 409, back.text);
      const done = await call(a.token, 'POST', `/v1/incidents/${id}/status`, { status: 'resolved' });
      assert.equal(done.body.incident.status, 'resolved');
      assert.equal(done.body.incident.postmortem.status, 'draft');
      assert.match(done.body.incident.postmortem.markdown, /mitigated: failed over|→ mitigated: failed over/);
    });
    it("400, 401, 404 and another account's incident", async () => {
      const path = `/v1/incidents/${incidentId}/status`;
      assert.equal((await call(a.token, 'POST', path, { status: 'triggered' })).status, 400);
      assert.equal((await call(a.token, 'POST', path, {})).status, 400);
      assert.equal((await call(undefined, 'POST', path, { status: 'acknowledged' })).status, 401);
      assert.equal(
        (await call(a.token, 'POST', '/v1/incidents/inc_nope/status', { status: 'acknowledged' })).status,
        404,
      );
      const foreign = await call(a.token, 'POST', `/v1/incidents/${bIncident}/status`, { status: 'acknowledged' });
      assert.equal(foreign.status, 404);
    });
  });

  describe('POST /v1/incidents/{incidentId}/roles', () => {
    it('assigns, reassigns and unassigns a role, each on the timeline', async () => {
      const path = `/v1/incidents/${incidentId}/roles`;
      await call(a.token, 'POST', path, { role: 'incidentCommander', assignee: 'olga' });
      const res = await call(a.token, 'POST', path, { role: 'communicationsLead', assignee: 'sam' });
      assert.equal(res.status, 200, res.text);
      const roles = Object.fromEntries(res.body.incident.roles.map((r: any) => [r.role, r.assignee]));
      assert.deepEqual([roles.incidentCommander, roles.communicationsLead], ['olga', 'sam']);
      const off = await call(a.token, 'POST', path, { role: 'communicationsLead', assignee: null });
      assert.equal(off.body.incident.roles.find((r: any) => r.role === 'communicationsLead').assignee, null);
      assert.ok(off.body.incident.timeline.some((t: any) => t.text === 'communicationsLead unassigned'));
    });
    it("400, 401, 404 and another account's incident", async () => {
      const path = `/v1/incidents/${incidentId}/roles`;
      assert.equal((await call(a.token, 'POST', path, { role: '1 bad', assignee: 'x' })).status, 400);
      assert.equal((await call(a.token, 'POST', path, { role: 'scribe' })).status, 400);
      assert.equal((await call(undefined, 'POST', path, { role: 'scribe', assignee: 'x' })).status, 401);
      const body = { role: 'scribe', assignee: 'x' };
      assert.equal((await call(a.token, 'POST', '/v1/incidents/inc_nope/roles', body)).status, 404);
      assert.equal((await call(a.token, 'POST', `/v1/incidents/${bIncident}/roles`, body)).status, 404);
    });
  });

  describe('POST /v1/incidents/{incidentId}/notes', () => {
    it('adds a note with its author', async () => {
      const res = await call(a.token, 'POST', `/v1/incidents/${incidentId}/notes`, { text: 'db-2 disk at 91 %' });
      assert.equal(res.status, 200, res.text);
      const note = res.body.incident.timeline.find((t: any) => t.kind === 'note');
      assert.equal(note.text, 'db-2 disk at 91 %');
      assert.match(note.actor, /^(token|member):/);
    });
    it("400, 401, 404 and another account's incident", async () => {
      const path = `/v1/incidents/${incidentId}/notes`;
      assert.equal((await call(a.token, 'POST', path, { text: '' })).status, 400);
      assert.equal((await call(undefined, 'POST', path, { text: 'x' })).status, 401);
      assert.equal((await call(a.token, 'POST', '/v1/incidents/inc_nope/notes', { text: 'x' })).status, 404);
      assert.equal((await call(a.token, 'POST', `/v1/incidents/${bIncident}/notes`, { text: 'x' })).status, 404);
    });
  });
});
