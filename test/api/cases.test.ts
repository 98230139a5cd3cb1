import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('cases: create and upsert, list, fetch, update and the case status table', () => {
  let a: { token: string; accountId: string; tokenId: string };
  let b: { token: string };
  const post = (path: string, body: object, token = a.token) => harness.call('POST', path, { token, body });
  const get = (path: string, token = a.token) => harness.call('GET', path, { token });
  const open = async (body: object = {}, token = a.token) => {
    const res = await post('/v1/cases', { title: 'Disputed charge on card 4412', ...body }, token);
    assert.equal(res.status, 201, res.text);
    return res.body.case;
  };
  const events = async (type: string) => (await get(`/v1/events?type=${type}&limit=200`)).body.events as any[];
  const kinds = async (caseId: string) =>
    (await get(`/v1/cases/${caseId}/timeline?limit=200`)).body.entries.map((e: any) => e.kind);

  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it(
    'POST /v1/cases answers 201 with an open case, its moves and empty parts; the timeline starts with its ' +
      'creation',
    async () => {
      const taskId = (await post('/v1/tasks', { domain: 'resolve', inData: {} })).body.task.taskId;
      const res = await post('/v1/cases', {
        title: 'Refund dispute',
        description: 'Seller refuses refund',
        priority: 'high',
        taskId,
        metadata: { amount: 120 },
        assignee: 'ana',
        watchers: ['bo'],
      });
      assert.equal(res.status, 201, res.text);
      const c = res.body.case;
      assert.equal(res.body.created, true);
      assert.match(c.caseId, /^case_/);
      assert.deepEqual(
        [c.status, c.priority, c.taskId, c.runId, c.externalKey, c.metadata, c.assignee, c.watchers],
        ['open', 'high', taskId, null, null, { amount: 120 }, 'ana', ['bo']],
      );
      assert.deepEqual(c.allowedTransitions, ['investigating', 'awaitingParty', 'resolved', 'closed']);
      assert.deepEqual([c.stakeholders, c.deadlines, c.actions], [[], [], []]);
      assert.deepEqual(await kinds(c.caseId), ['case.created']);
    },
  );

  it(
    'POST /v1/cases upserts by externalKey: the second POST answers the same case (200, created false), ' +
      'applies changed fields once, and the same body again changes nothing',
    async () => {
      const first = await open({ externalKey: 'ticket-981', priority: 'low' });
      const again = await post('/v1/cases', {
        title: 'Disputed charge on card 4412',
        externalKey: 'ticket-981',
        priority: 'low',
      });
      assert.deepEqual([again.status, again.body.created, again.body.case.caseId], [200, false, first.caseId]);
      assert.deepEqual(await kinds(first.caseId), ['case.created'], 'nothing changed, nothing written');
      const changed = await post('/v1/cases', {
        title: 'Disputed charge on card 4412',
        externalKey: 'ticket-981',
        priority: 'urgent',
        metadata: { bank: 'x' },
      });
      assert.deepEqual(
        [changed.status, changed.body.case.caseId, changed.body.case.priority, changed.body.case.metadata],
        [200, first.caseId, 'urgent', { bank: 'x' }],
      );
      await post('/v1/cases', {
        title: 'Disputed charge on card 4412',
        externalKey: 'ticket-981',
        priority: 'urgent',
        metadata: { bank: 'x' },
      });
      assert.deepEqual(await kinds(first.caseId), ['case.created', 'case.updated']);
      const updated = (await events('case.updated')).filter((e) => e.payload.caseId === first.caseId);
      assert.equal(updated.length, 1);
      assert.deepEqual(updated[0].payload.changes.sort(), ['metadata', 'priority']);
      const concurrent = await Promise.all(
        [1, 2, 3, 4].map(() => post('/v1/cases', { title: 'Race', externalKey: 'race-1' })),
      );
      assert.equal(
        new Set(concurrent.map((r) => r.body.case.caseId)).size,
        1,
        'racing upserts of one key make one case',
      );
      assert.deepEqual(concurrent.map((r) => r.status).sort(), [200, 200, 200, 201]);
      assert.equal(
        (await post('/v1/cases', { title: 'Same key, other account', externalKey: 'ticket-981' }, b.token)).status,
        201,
        'keys are per account',
      );
    },
  );

  it(
    "POST /v1/cases: 400 without a title or with an unknown priority, 404 for another account's or an unknown " +
      'task or run, 401 without a token',
    async () => {
      for (const bad of [{}, { title: '' }, { title: 'x', priority: 'asap' }, { title: 'x', watchers: 'bo' }]) {
        const res = await post('/v1/cases', bad);
        assert.deepEqual([res.status, res.body.error], [400, 'invalidPayload'], JSON.stringify(bad));
      }
      const otherTask = (await post('/v1/tasks', { domain: 'resolve', inData: {} }, b.token)).body.task.taskId;
      assert.equal((await post('/v1/cases', { title: 'x', taskId: otherTask })).status, 404);
      assert.equal((await post('/v1/cases', { title: 'x', runId: 'run_missing' })).status, 404);
      assert.equal((await harness.call('POST', '/v1/cases', { body: { title: 'x' } })).status, 401);
    },
  );

  it(
    'GET /v1/cases lists newest first with status, priority, taskId, stakeholderEmail and text filters and a ' +
      'cursor; 400 for an unknown status, 401 without a token; another account sees none',
    async () => {
      const taskId = (await post('/v1/tasks', { domain: 'resolve', inData: {} })).body.task.taskId;
      const one = await open({ title: 'Landlord deposit 50%_off', taskId, priority: 'low' });
      const two = await open({ title: 'Vendor check Acme', taskId });
      await post(`/v1/cases/${two.caseId}/update`, { status: 'investigating' });
      await post(`/v1/cases/${one.caseId}/stakeholders`, {
        name: 'Lee',
        role: 'respondent',
        contact: { email: 'Lee@Example.com' },
      });
      const byTask = await get(`/v1/cases?taskId=${taskId}`);
      assert.equal(byTask.status, 200, byTask.text);
      assert.deepEqual(
        byTask.body.cases.map((c: any) => c.caseId),
        [two.caseId, one.caseId],
      );
      const page1 = await get(`/v1/cases?taskId=${taskId}&limit=1`);
      const page2 = await get(`/v1/cases?taskId=${taskId}&limit=1&cursor=${page1.body.nextCursor}`);
      assert.deepEqual(
        [page1.body.cases[0].caseId, page2.body.cases[0].caseId, page2.body.nextCursor],
        [two.caseId, one.caseId, null],
      );
      assert.deepEqual(
        (await get(`/v1/cases?taskId=${taskId}&status=investigating`)).body.cases.map((c: any) => c.caseId),
        [two.caseId],
      );
      assert.deepEqual(
        (await get(`/v1/cases?taskId=${taskId}&priority=low`)).body.cases.map((c: any) => c.caseId),
        [one.caseId],
      );
      assert.deepEqual(
        (await get('/v1/cases?stakeholderEmail=lee@example.com')).body.cases.map((c: any) => c.caseId),
        [one.caseId],
      );
      assert.deepEqual(
        (await get(`/v1/cases?text=${encodeURIComponent('50%_off')}`)).body.cases.map((c: any) => c.caseId),
        [one.caseId],
        '% and _ match themselves',
      );
      assert.deepEqual(
        (await get('/v1/cases?text=acme')).body.cases.map((c: any) => c.caseId),
        [two.caseId],
      );
      assert.equal((await get('/v1/cases?status=done')).status, 400);
      assert.equal((await get('/v1/cases?stakeholderEmail=not-an-email')).status, 400);
      assert.equal((await harness.call('GET', '/v1/cases')).status, 401);
      assert.deepEqual((await get(`/v1/cases?taskId=${taskId}`, b.token)).body.cases, []);
    },
  );

  it(
    'GET /v1/cases/{caseId} embeds stakeholders, deadlines with their status and only the open action items; ' +
      "404 unknown or another account's, 401 without a token",
    async () => {
      const c = await open();
      await post(`/v1/cases/${c.caseId}/stakeholders`, {
        name: 'Ana',
        role: 'claimant',
        contact: { email: 'ana@example.com' },
        organisation: 'Home',
      });
      await post(`/v1/cases/${c.caseId}/deadlines`, {
        title: 'Chargeback window',
        dueAt: '2030-01-01T00:00:00Z',
        owner: 'ana',
      });
      const keep = (await post(`/v1/cases/${c.caseId}/actions`, { title: 'Call the bank' })).body.action;
      const done = (await post(`/v1/cases/${c.caseId}/actions`, { title: 'Collect receipts' })).body.action;
      await post(`/v1/cases/${c.caseId}/actions/${done.actionId}/update`, { status: 'done' });
      const res = await get(`/v1/cases/${c.caseId}`);
      assert.equal(res.status, 200, res.text);
      const got = res.body.case;
      assert.deepEqual(
        got.stakeholders.map((s: any) => [s.name, s.role, s.contact.email, s.organisation]),
        [['Ana', 'claimant', 'ana@example.com', 'Home']],
      );
      assert.deepEqual(
        got.deadlines.map((d: any) => [d.title, d.status, d.dueAt, d.owner]),
        [['Chargeback window', 'open', '2030-01-01T00:00:00.000Z', 'ana']],
      );
      assert.deepEqual(
        got.actions.map((x: any) => x.actionId),
        [keep.actionId],
      );
      assert.equal((await get('/v1/cases/case_missing')).status, 404);
      assert.equal((await get(`/v1/cases/${c.caseId}`, b.token)).status, 404);
      assert.equal((await harness.call('GET', `/v1/cases/${c.caseId}`)).status, 401);
    },
  );

  it(
    'POST /v1/cases/{caseId}/update moves the status through the table (409 with the allowed moves otherwise, ' +
      'nothing out of closed), reopens a resolved case, merges metadata and sets collaboration state; each ' +
      'change is case.updated',
    async () => {
      const c = await open({ metadata: { keep: 1, drop: 2 } });
      const move = (body: object) => post(`/v1/cases/${c.caseId}/update`, body);
      const investigating = await move({
        status: 'investigating',
        note: 'started',
        assignee: 'ana',
        watchers: ['bo', 'cy'],
        metadata: { drop: null, added: true },
      });
      assert.equal(investigating.status, 200, investigating.text);
      const v = investigating.body.case;
      assert.deepEqual(
        [v.status, v.assignee, v.watchers, v.metadata, v.allowedTransitions],
        ['investigating', 'ana', ['bo', 'cy'], { keep: 1, added: true }, ['awaitingParty', 'resolved', 'closed']],
      );
      const back = await move({ status: 'open' });
      assert.deepEqual(
        [back.status, back.body.error, back.body.details],
        [409, 'conflict', { from: 'investigating', to: 'open', allowed: ['awaitingParty', 'resolved', 'closed'] }],
      );
      assert.equal((await move({ status: 'awaitingParty' })).body.case.status, 'awaitingParty');
      assert.equal((await move({ status: 'resolved' })).body.case.status, 'resolved');
      assert.equal((await move({ status: 'open', note: 'customer wrote again' })).body.case.status, 'open', 'reopened');
      assert.equal((await move({ status: 'closed', assignee: null })).body.case.assignee, null);
      const stuck = await move({ status: 'investigating' });
      assert.deepEqual([stuck.status, stuck.body.details.allowed], [409, []]);
      assert.equal((await move({ priority: 'high' })).status, 200, 'a closed case still takes notes on its fields');
      const payloads = (await events('case.updated'))
        .filter((e) => e.payload.caseId === c.caseId)
        .map((e) => e.payload)
        .reverse();
      assert.deepEqual(
        payloads.map((p) => [p.from ?? null, p.status]),
        [
          ['open', 'investigating'],
          ['investigating', 'awaitingParty'],
          ['awaitingParty', 'resolved'],
          ['resolved', 'open'],
          ['open', 'closed'],
          [null, 'closed'],
        ],
      );
      assert.deepEqual(payloads[0].changes.sort(), ['assignee', 'metadata', 'status', 'watchers']);
    },
  );

  it(
    'POST /v1/cases/{caseId}/update: 400 for an unknown status or nothing to update, 404 unknown or another ' +
      "account's, 401 without a token",
    async () => {
      const c = await open();
      const bad = await post(`/v1/cases/${c.caseId}/update`, { status: 'archived' });
      assert.deepEqual([bad.status, bad.body.details[0].path], [400, '/status']);
      assert.equal((await post(`/v1/cases/${c.caseId}/update`, { note: 'only a note' })).status, 400);
      assert.equal((await post('/v1/cases/case_missing/update', { status: 'closed' })).status, 404);
      assert.equal((await post(`/v1/cases/${c.caseId}/update`, { status: 'closed' }, b.token)).status, 404);
      assert.equal(
        (await harness.call('POST', `/v1/cases/${c.caseId}/update`, { body: { status: 'closed' } })).status,
        401,
      );
      assert.equal((await get(`/v1/cases/${c.caseId}`)).body.case.status, 'open');
    },
  );
});
