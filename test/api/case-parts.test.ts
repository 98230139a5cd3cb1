import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('cases: stakeholders, deadlines and their review, action items, appended events and the timeline', () => {
  let a: { token: string; accountId: string; tokenId: string };
  let b: { token: string };
  const post = (path: string, body: object, token = a.token) => harness.call('POST', path, { token, body });
  const get = (path: string, token = a.token) => harness.call('GET', path, { token });
  const open = async () => (await post('/v1/cases', { title: 'Vendor check' })).body.case.caseId as string;
  const events = async (type: string) => (await get(`/v1/events?type=${type}&limit=200`)).body.events as any[];
  const past = () => new Date(Date.now() - 3600_000).toISOString();

  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it(
    'POST …/stakeholders answers 201; the same email (any case) or the same phone (any format) again is 409 ' +
      'naming the stakeholder; another case may have the same contact',
    async () => {
      const caseId = await open();
      const res = await post(`/v1/cases/${caseId}/stakeholders`, {
        name: 'Kim',
        role: 'vendor',
        contact: { email: 'Kim@Acme.example', phone: '+49 30 5550123' },
        organisation: 'Acme',
      });
      assert.equal(res.status, 201, res.text);
      const s = res.body.stakeholder;
      assert.match(s.stakeholderId, /^stk_/);
      assert.deepEqual(
        [s.name, s.role, s.contact, s.organisation],
        ['Kim', 'vendor', { email: 'kim@acme.example', phone: '+49305550123' }, 'Acme'],
      );
      const byEmail = await post(`/v1/cases/${caseId}/stakeholders`, {
        name: 'Kim again',
        role: 'vendor',
        contact: { email: 'KIM@acme.example' },
      });
      assert.deepEqual([byEmail.status, byEmail.body.details.stakeholderId], [409, s.stakeholderId]);
      const byPhone = await post(`/v1/cases/${caseId}/stakeholders`, {
        name: 'Front desk',
        role: 'vendor',
        contact: { phone: '+4930 555 0123' },
      });
      assert.deepEqual([byPhone.status, byPhone.body.details.stakeholderId], [409, s.stakeholderId]);
      assert.equal(
        (
          await post(`/v1/cases/${await open()}/stakeholders`, {
            name: 'Kim',
            role: 'vendor',
            contact: { email: 'kim@acme.example' },
          })
        ).status,
        201,
      );
      assert.equal((await get(`/v1/cases/${caseId}`)).body.case.stakeholders.length, 1);
    },
  );

  it(
    'POST …/stakeholders: 400 for an unknown role, no contact or an impossible phone; 404 unknown or another ' +
      "account's case; 401 without a token",
    async () => {
      const caseId = await open();
      for (const bad of [
        { name: 'X', role: 'boss', contact: { email: 'x@example.com' } },
        { name: 'X', role: 'other', contact: {} },
        { name: 'X', role: 'other' },
        { name: 'X', role: 'other', contact: { phone: '12' } },
        { name: 'X', role: 'other', contact: { email: 'nope' } },
      ]) {
        const res = await post(`/v1/cases/${caseId}/stakeholders`, bad);
        assert.deepEqual([res.status, res.body.error], [400, 'invalidPayload'], JSON.stringify(bad));
      }
      const body = { name: 'X', role: 'other', contact: { email: 'x@example.com' } };
      assert.equal((await post('/v1/cases/case_missing/stakeholders', body)).status, 404);
      assert.equal((await post(`/v1/cases/${caseId}/stakeholders`, body, b.token)).status, 404);
      assert.equal((await harness.call('POST', `/v1/cases/${caseId}/stakeholders`, { body })).status, 401);
    },
  );

  it(
    'POST …/deadlines answers 201 open; the review marks overdue open deadlines missed once, answers what ' +
      'changed and writes case.deadline.missed; met and waived go through the deadline table',
    async () => {
      const caseId = await open();
      const late = (
        await post(`/v1/cases/${caseId}/deadlines`, { title: 'Reply to the bank', dueAt: past(), owner: 'ana' })
      ).body;
      const soon = await post(`/v1/cases/${caseId}/deadlines`, {
        title: 'File the claim',
        dueAt: '2031-05-01T12:00:00+02:00',
      });
      assert.equal(soon.status, 201, soon.text);
      assert.deepEqual(
        [soon.body.deadline.status, soon.body.deadline.dueAt, soon.body.deadline.allowedTransitions],
        ['open', '2031-05-01T10:00:00.000Z', ['met', 'missed', 'waived']],
      );
      const review = await post(`/v1/cases/${caseId}/deadlines/review`, {});
      assert.equal(review.status, 200, review.text);
      assert.deepEqual(
        review.body.missed.map((d: any) => [d.deadlineId, d.status]),
        [[late.deadline.deadlineId, 'missed']],
      );
      assert.deepEqual(
        review.body.deadlines.map((d: any) => d.status),
        ['missed', 'open'],
      );
      assert.deepEqual(
        (await post(`/v1/cases/${caseId}/deadlines/review`, {})).body.missed,
        [],
        'a deadline is missed once',
      );
      const missed = (await events('case.deadline.missed')).filter((e) => e.payload.caseId === caseId);
      assert.deepEqual(
        missed.map((e) => [e.payload.deadlineId, e.payload.title, e.payload.owner]),
        [[late.deadline.deadlineId, 'Reply to the bank', 'ana']],
      );
      const update = (id: string, body: object) => post(`/v1/cases/${caseId}/deadlines/${id}/update`, body);
      const metLate = await update(late.deadline.deadlineId, { status: 'met', note: 'replied a day late' });
      assert.deepEqual(
        [metLate.status, metLate.body.deadline.status, metLate.body.deadline.allowedTransitions],
        [200, 'met', []],
      );
      const again = await update(late.deadline.deadlineId, { status: 'waived' });
      assert.deepEqual([again.status, again.body.details], [409, { from: 'met', to: 'waived', allowed: [] }]);
      assert.equal(
        (await update(soon.body.deadline.deadlineId, { dueAt: '2031-06-01T00:00:00Z', owner: 'bo' })).body.deadline
          .owner,
        'bo',
      );
      assert.equal(
        (await update(soon.body.deadline.deadlineId, { status: 'missed' })).status,
        400,
        "missed is the review's",
      );
    },
  );

  it(
    "deadline routes: 400 for a bad dueAt, 404 unknown or another account's case or deadline, 401 without a " + 'token',
    async () => {
      const caseId = await open();
      assert.equal((await post(`/v1/cases/${caseId}/deadlines`, { title: 'x', dueAt: 'tomorrow' })).status, 400);
      assert.equal((await post(`/v1/cases/${caseId}/deadlines`, { dueAt: past() })).status, 400);
      const body = { title: 'x', dueAt: past() };
      assert.equal((await post('/v1/cases/case_missing/deadlines', body)).status, 404);
      assert.equal((await post(`/v1/cases/${caseId}/deadlines`, body, b.token)).status, 404);
      assert.equal((await post(`/v1/cases/${caseId}/deadlines/review`, {}, b.token)).status, 404);
      assert.equal((await post('/v1/cases/case_missing/deadlines/review', {})).status, 404);
      assert.equal((await post(`/v1/cases/${caseId}/deadlines/ddl_missing/update`, { status: 'met' })).status, 404);
      const id = (await post(`/v1/cases/${caseId}/deadlines`, body)).body.deadline.deadlineId;
      assert.equal((await post(`/v1/cases/${caseId}/deadlines/${id}/update`, { status: 'met' }, b.token)).status, 404);
      assert.equal(
        (await post(`/v1/cases/${await open()}/deadlines/${id}/update`, { status: 'met' })).status,
        404,
        'a deadline of another case',
      );
      for (const path of [
        `/v1/cases/${caseId}/deadlines`,
        `/v1/cases/${caseId}/deadlines/review`,
        `/v1/cases/${caseId}/deadlines/${id}/update`,
      ]) {
        assert.equal((await harness.call('POST', path, { body })).status, 401, path);
      }
      assert.equal(
        (await get(`/v1/cases/${caseId}`)).body.case.deadlines[0].status,
        'open',
        'nothing another account sent changed it',
      );
    },
  );

  it(
    'action items: 201 with refs to your records, listed with a status filter and a cursor, moved through ' +
      'their table (409 out of done) with case.action.updated',
    async () => {
      const caseId = await open();
      const taskId = (await post('/v1/tasks', { domain: 'resolve', inData: {} })).body.task.taskId;
      const created = await post(`/v1/cases/${caseId}/actions`, {
        title: 'Ask for the invoice',
        owner: 'ana',
        dueAt: '2030-02-01T00:00:00Z',
        refs: [
          { kind: 'task', id: taskId },
          { kind: 'receipt', id: 'rcpt_outside' },
        ],
      });
      assert.equal(created.status, 201, created.text);
      const x = created.body.action;
      assert.match(x.actionId, /^cact_/);
      assert.deepEqual(
        [x.status, x.owner, x.dueAt, x.refs, x.allowedTransitions],
        [
          'open',
          'ana',
          '2030-02-01T00:00:00.000Z',
          [
            { kind: 'task', id: taskId },
            { kind: 'receipt', id: 'rcpt_outside' },
          ],
          ['inProgress', 'blocked', 'done', 'canceled'],
        ],
      );
      const second = (await post(`/v1/cases/${caseId}/actions`, { title: 'Check the contract' })).body.action;
      const update = (id: string, body: object) => post(`/v1/cases/${caseId}/actions/${id}/update`, body);
      const moved = await update(x.actionId, {
        status: 'inProgress',
        owner: null,
        dueAt: null,
        refs: [{ kind: 'task', id: taskId }],
      });
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual(
        [moved.body.action.status, moved.body.action.owner, moved.body.action.dueAt, moved.body.action.refs.length],
        ['inProgress', null, null, 1],
      );
      assert.equal((await update(x.actionId, { status: 'done' })).body.action.status, 'done');
      const stuck = await update(x.actionId, { status: 'open' });
      assert.deepEqual([stuck.status, stuck.body.details], [409, { from: 'done', to: 'open', allowed: [] }]);
      const all = await get(`/v1/cases/${caseId}/actions`);
      assert.deepEqual(
        all.body.actions.map((y: any) => y.actionId),
        [second.actionId, x.actionId],
      );
      assert.deepEqual(
        (await get(`/v1/cases/${caseId}/actions?status=done`)).body.actions.map((y: any) => y.actionId),
        [x.actionId],
      );
      const page1 = await get(`/v1/cases/${caseId}/actions?limit=1`);
      const page2 = await get(`/v1/cases/${caseId}/actions?limit=1&cursor=${page1.body.nextCursor}`);
      assert.deepEqual(
        [page1.body.actions[0].actionId, page2.body.actions[0].actionId, page2.body.nextCursor],
        [second.actionId, x.actionId, null],
      );
      const payloads = (await events('case.action.updated'))
        .filter((e) => e.payload.actionId === x.actionId)
        .map((e) => e.payload)
        .reverse();
      assert.deepEqual(
        payloads.map((p) => [p.from, p.status]),
        [
          ['open', 'inProgress'],
          ['inProgress', 'done'],
        ],
      );
      assert.deepEqual(payloads[0].changes.sort(), ['dueAt', 'owner', 'refs', 'status']);
    },
  );

  it(
    'action routes: 400 for an unknown status or ref kind, 404 for a ref, case or action not yours, 401 ' +
      'without a token',
    async () => {
      const caseId = await open();
      const id = (await post(`/v1/cases/${caseId}/actions`, { title: 'x' })).body.action.actionId;
      assert.equal(
        (await post(`/v1/cases/${caseId}/actions`, { title: 'x', refs: [{ kind: 'invoice', id: 'i' }] })).status,
        400,
      );
      assert.equal((await post(`/v1/cases/${caseId}/actions/${id}/update`, { status: 'finished' })).status, 400);
      assert.equal((await get(`/v1/cases/${caseId}/actions?status=finished`)).status, 400);
      const theirTask = (await post('/v1/tasks', { domain: 'resolve', inData: {} }, b.token)).body.task.taskId;
      assert.equal(
        (await post(`/v1/cases/${caseId}/actions`, { title: 'x', refs: [{ kind: 'task', id: theirTask }] })).status,
        404,
      );
      assert.equal(
        (await post(`/v1/cases/${caseId}/actions/${id}/update`, { refs: [{ kind: 'run', id: 'run_missing' }] })).status,
        404,
      );
      assert.equal((await post(`/v1/cases/${caseId}/actions`, { title: 'x' }, b.token)).status, 404);
      assert.equal((await get(`/v1/cases/${caseId}/actions`, b.token)).status, 404);
      assert.equal((await post(`/v1/cases/${caseId}/actions/${id}/update`, { status: 'done' }, b.token)).status, 404);
      assert.equal((await post(`/v1/cases/${caseId}/actions/cact_missing/update`, { status: 'done' })).status, 404);
      assert.equal((await post('/v1/cases/case_missing/actions', { title: 'x' })).status, 404);
      assert.equal((await harness.call('POST', `/v1/cases/${caseId}/actions`, { body: { title: 'x' } })).status, 401);
      assert.equal((await harness.call('GET', `/v1/cases/${caseId}/actions`)).status, 401);
      assert.equal(
        (await harness.call('POST', `/v1/cases/${caseId}/actions/${id}/update`, { body: { status: 'done' } })).status,
        401,
      );
    },
  );

  it(
    'the timeline lists every change in ascending order, appended events at their own time, and pages with a ' +
      'cursor without losing or repeating an entry',
    async () => {
      const caseId = await open();
      const earlier = await post(`/v1/cases/${caseId}/events`, {
        kind: 'call',
        text: 'Called the vendor before opening the case',
        at: '2020-01-01T10:00:00Z',
      });
      assert.equal(earlier.status, 201, earlier.text);
      assert.deepEqual(
        [earlier.body.entry.kind, earlier.body.entry.at, earlier.body.entry.actor],
        ['call', '2020-01-01T10:00:00.000Z', `token:${a.tokenId}`],
      );
      await post(`/v1/cases/${caseId}/update`, { status: 'investigating' });
      await post(`/v1/cases/${caseId}/stakeholders`, {
        name: 'Kim',
        role: 'vendor',
        contact: { email: 'kim@x.example' },
      });
      await post(`/v1/cases/${caseId}/deadlines`, { title: 'Answer due', dueAt: past() });
      await post(`/v1/cases/${caseId}/deadlines/review`, {});
      const action = (await post(`/v1/cases/${caseId}/actions`, { title: 'Get the contract' })).body.action;
      await post(`/v1/cases/${caseId}/actions/${action.actionId}/update`, { status: 'done' });
      await post(`/v1/cases/${caseId}/events`, {
        kind: 'note',
        text: 'Contract received',
        refs: [{ kind: 'receipt', id: 'rcpt_1' }],
      });
      const all = (await get(`/v1/cases/${caseId}/timeline?limit=200`)).body.entries;
      assert.deepEqual(
        all.map((e: any) => e.kind),
        [
          'call',
          'case.created',
          'case.updated',
          'stakeholder.added',
          'deadline.added',
          'deadline.missed',
          'action.added',
          'action.updated',
          'note',
        ],
      );
      const times = all.map((e: any) => Date.parse(e.at));
      assert.deepEqual(
        times,
        [...times].sort((x: number, y: number) => x - y),
      );
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(`/v1/cases/${caseId}/timeline?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(res.status, 200, res.text);
        paged.push(...res.body.entries.map((e: any) => e.entryId));
        cursor = res.body.nextCursor;
      } while (cursor);
      assert.deepEqual(
        paged,
        all.map((e: any) => e.entryId),
      );
    },
  );

  it(
    'timeline routes: 400 for an unknown kind, a bad time or a foreign cursor; 404 unknown or another ' +
      "account's case, or a ref not yours; 401 without a token",
    async () => {
      const caseId = await open();
      assert.equal(
        (await post(`/v1/cases/${caseId}/events`, { kind: 'case.updated', text: 'forged' })).status,
        400,
        "service kinds are the service's",
      );
      assert.equal(
        (await post(`/v1/cases/${caseId}/events`, { kind: 'note', text: 'x', at: 'yesterday' })).status,
        400,
      );
      assert.equal((await post(`/v1/cases/${caseId}/events`, { kind: 'note' })).status, 400);
      assert.equal((await get(`/v1/cases/${caseId}/timeline?cursor=garbage`)).status, 400);
      assert.equal(
        (
          await post(`/v1/cases/${caseId}/events`, {
            kind: 'note',
            text: 'x',
            refs: [{ kind: 'mission', id: 'prx_missing' }],
          })
        ).status,
        404,
      );
      assert.equal((await post(`/v1/cases/${caseId}/events`, { kind: 'note', text: 'x' }, b.token)).status, 404);
      assert.equal((await get(`/v1/cases/${caseId}/timeline`, b.token)).status, 404);
      assert.equal((await get('/v1/cases/case_missing/timeline')).status, 404);
      assert.equal(
        (await harness.call('POST', `/v1/cases/${caseId}/events`, { body: { kind: 'note', text: 'x' } })).status,
        401,
      );
      assert.equal((await harness.call('GET', `/v1/cases/${caseId}/timeline`)).status, 401);
    },
  );
});
