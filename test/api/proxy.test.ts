import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

describe('proxy missions: create, list, fetch, update, outcome (by id and by reference), provider book', () => {
  let a: { token: string; accountId: string; tokenId: string };
  let b: { token: string };
  const newTask = async (token = a.token) =>
    (await harness.call('POST', '/v1/tasks', { token, body: { domain: 'proxy', inData: { want: 'a plumber' } } })).body
      .task.taskId as string;
  const mission = (taskId: string, extra: Record<string, unknown> = {}) => ({
    taskId,
    kind: 'call',
    reason: 'localServiceAvailability',
    task: 'Confirm Kiez Plumbing can fix the leak tomorrow',
    context: { selectedProvider: { name: 'Kiez Plumbing', phone: '+49 30 5550123', providerId: 'cand-kiez' } },
    voiceCall: { phone: '+49 30 5550123', prompt: 'Can you fix a leak tomorrow?' },
    proofReq: ['callSummary'],
    ...extra,
  });
  const create = async (body: object, token = a.token) => {
    const res = await harness.call('POST', '/v1/proxy/missions', { token, body });
    assert.equal(res.status, 201, res.text);
    return res.body.mission;
  };
  const outcome = (proxyId: string, body: object, token = a.token) =>
    harness.call('POST', `/v1/proxy/missions/${proxyId}/outcome`, { token, body });

  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it(
    'POST /v1/proxy/missions answers 201 open with the mission; the task waits on it, the provider enters the ' +
      'book unverified, nothing is sent',
    async () => {
      const taskId = await newTask();
      const res = await harness.call('POST', '/v1/proxy/missions', {
        token: a.token,
        body: mission(taskId),
        headers: { 'x-request-id': `req-${taskId}` },
      });
      assert.equal(res.status, 201, res.text);
      assert.match(res.body.proxyId, /^prx_/);
      assert.equal(res.body.status, 'open');
      const m = res.body.mission;
      assert.deepEqual(
        [m.proxyId, m.taskId, m.runId, m.kind, m.reason, m.status, m.proofReq, m.requestId],
        [res.body.proxyId, taskId, null, 'call', 'localServiceAvailability', 'open', ['callSummary'], `req-${taskId}`],
      );
      assert.deepEqual(m.allowedTransitions, ['inProgress', 'resolved', 'failed', 'expired', 'canceled']);
      assert.equal(m.dispatch.voiceCall.status, 'notSent');
      assert.equal(m.dispatch.channelMsg, undefined);
      assert.match(m.callbackRef, /^pcb_/);
      assert.equal(m.providerRef, 'cand-kiez');
      assert.deepEqual([m.provider.name, m.provider.status], ['Kiez Plumbing', 'unverified']);
      assert.ok(Date.parse(m.expiresAt) > Date.now() + 71 * 3600_000, 'expires after PROXY_MISSION_TTL_HOURS');
      assert.deepEqual(
        m.history.map((h: any) => [h.from, h.to]),
        [[null, 'open']],
      );
      const task = (await harness.call('GET', `/v1/tasks/${taskId}`, { token: a.token })).body.task;
      assert.equal(task.status, 'awaitingProxy');
      assert.deepEqual(
        task.audit.map((x: any) => x.to),
        ['open', 'running', 'awaitingProxy'],
      );
      const provider = (await harness.call('GET', `/v1/proxy/providers/${m.provider.providerId}`, { token: a.token }))
        .body;
      assert.deepEqual(
        [provider.provider.phone, provider.provider.status, provider.verifications],
        ['+49305550123', 'unverified', []],
      );
    },
  );

  it(
    'POST /v1/proxy/missions: 400 for a missing or unknown kind, reason or task; 404 for an unknown or another ' +
      "account's task; 409 for a finished task; 401 without a token",
    async () => {
      const taskId = await newTask();
      const post = (body: object, token = a.token) => harness.call('POST', '/v1/proxy/missions', { token, body });
      for (const bad of [
        { ...mission(taskId), kind: 'telegram' },
        { ...mission(taskId), reason: 'boredom' },
        { ...mission(taskId), task: '' },
        { kind: 'call', reason: 'humanReviewerNeeded', task: 'x' },
        { ...mission(taskId), proofReq: ['has space'] },
      ]) {
        const res = await post(bad);
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(res.body.error, 'invalidPayload');
      }
      const kindError = await post({ ...mission(taskId), kind: 'telegram' });
      assert.ok(kindError.body.details.some((d: any) => d.path === '/kind'));
      assert.equal((await post(mission('task_missing'))).status, 404);
      assert.equal((await post(mission(taskId), b.token)).status, 404, "another account's task");
      const done = await newTask();
      await harness.call('POST', `/v1/tasks/${done}/update`, { token: a.token, body: { status: 'completed' } });
      assert.equal((await post(mission(done))).status, 409);
      assert.equal((await harness.call('POST', '/v1/proxy/missions', { body: mission(taskId) })).status, 401);
    },
  );

  it(
    'GET /v1/proxy/missions lists newest first with status, kind and taskId filters and a cursor; 400 for an ' +
      'unknown filter value, 401 without a token',
    async () => {
      const taskId = await newTask();
      const first = await create(mission(taskId, { kind: 'message', reason: 'humanReviewerNeeded' }));
      const second = await create(mission(taskId));
      const byTask = await harness.call('GET', `/v1/proxy/missions?taskId=${taskId}`, { token: a.token });
      assert.equal(byTask.status, 200, byTask.text);
      assert.deepEqual(
        byTask.body.missions.map((m: any) => m.proxyId),
        [second.proxyId, first.proxyId],
      );
      const page1 = await harness.call('GET', `/v1/proxy/missions?taskId=${taskId}&limit=1`, { token: a.token });
      const page2 = await harness.call(
        'GET',
        `/v1/proxy/missions?taskId=${taskId}&limit=1&cursor=${page1.body.nextCursor}`,
        { token: a.token },
      );
      assert.deepEqual(
        [page1.body.missions[0].proxyId, page2.body.missions[0].proxyId, page2.body.nextCursor],
        [second.proxyId, first.proxyId, null],
      );
      const messages = await harness.call('GET', `/v1/proxy/missions?taskId=${taskId}&kind=message&status=open`, {
        token: a.token,
      });
      assert.deepEqual(
        messages.body.missions.map((m: any) => m.proxyId),
        [first.proxyId],
      );
      assert.equal((await harness.call('GET', '/v1/proxy/missions?status=done', { token: a.token })).status, 400);
      assert.equal((await harness.call('GET', '/v1/proxy/missions?kind=fax', { token: a.token })).status, 400);
      assert.deepEqual(
        (await harness.call('GET', `/v1/proxy/missions?taskId=${taskId}`, { token: b.token })).body.missions,
        [],
        'another account sees none',
      );
      assert.equal((await harness.call('GET', '/v1/proxy/missions')).status, 401);
    },
  );

  it(
    "GET /v1/proxy/missions/{proxyId}: 200 with the mission; 404 unknown or another account's; 401 without a " +
      'token',
    async () => {
      const m = await create(mission(await newTask()));
      const res = await harness.call('GET', `/v1/proxy/missions/${m.proxyId}`, { token: a.token });
      assert.deepEqual(
        [res.status, res.body.proxyId, res.body.status, res.body.mission.context.selectedProvider.name],
        [200, m.proxyId, 'open', 'Kiez Plumbing'],
      );
      assert.equal((await harness.call('GET', '/v1/proxy/missions/prx_missing', { token: a.token })).status, 404);
      assert.equal((await harness.call('GET', `/v1/proxy/missions/${m.proxyId}`, { token: b.token })).status, 404);
      assert.equal((await harness.call('GET', `/v1/proxy/missions/${m.proxyId}`)).status, 401);
    },
  );

  it(
    "an outcome confirming availability verifies the provider (with history), completes the mission's task and " +
      'is accepted once',
    async () => {
      const taskId = await newTask();
      const m = await create(mission(taskId));
      const missing = await outcome(m.proxyId, { status: 'confirmedSuccess', proof: { unrelated: 'x' } });
      assert.equal(missing.status, 400, missing.text);
      assert.match(missing.body.message, /callSummary/);
      assert.deepEqual(
        missing.body.details.map((d: any) => d.path),
        ['/proof/callSummary'],
      );
      assert.equal(
        (await outcome(m.proxyId, { status: 'confirmedSuccess', proof: { callSummary: '' } })).status,
        400,
        'an empty item is missing',
      );
      const res = await outcome(m.proxyId, {
        status: 'confirmedSuccess',
        note: 'they come at 9',
        availability: { status: 'available', availableAt: '2026-12-02T09:00:00Z' },
        proof: { callSummary: 'Spoke to Anna; 9am tomorrow' },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'resolved');
      assert.deepEqual(
        [
          res.body.verifiedProvider.name,
          res.body.verifiedProvider.providerId,
          res.body.verifiedProvider.availability.availableAt,
        ],
        ['Kiez Plumbing', m.provider.providerId, '2026-12-02T09:00:00Z'],
      );
      assert.equal(res.body.run, null);
      const after = res.body.mission;
      assert.deepEqual(
        [after.outcome.status, after.outcome.note, after.provider.status, after.allowedTransitions],
        ['confirmedSuccess', 'they come at 9', 'verified', []],
      );
      assert.deepEqual(
        after.proofArtefacts.map((p: any) => [p.item, p.required, p.sha256.length]),
        [['callSummary', true, 64]],
      );
      assert.deepEqual(
        after.history.map((h: any) => h.to),
        ['open', 'resolved'],
      );
      const book = (await harness.call('GET', `/v1/proxy/providers/${m.provider.providerId}`, { token: a.token })).body;
      assert.deepEqual(
        [book.provider.status, book.provider.verifiedByMission, book.provider.verifiedBy],
        ['verified', m.proxyId, `token:${a.tokenId}`],
      );
      assert.deepEqual(
        book.verifications.map((v: any) => [v.proxyId, v.outcomeStatus]),
        [[m.proxyId, 'confirmedSuccess']],
      );
      const task = (await harness.call('GET', `/v1/tasks/${taskId}`, { token: a.token })).body.task;
      assert.deepEqual([task.status, task.outData.proxyId], ['completed', m.proxyId]);
      const again = await outcome(m.proxyId, { status: 'failed' });
      assert.equal(again.status, 409);
      assert.match(again.body.message, /already resolved/);
      // A second mission with the same provider verifies it again: the history keeps both.
      const m2 = await create(mission(await newTask()));
      assert.equal(m2.provider.providerId, m.provider.providerId, 'one provider per phone in the book');
      await outcome(m2.proxyId, { status: 'confirmedSuccess', proof: { callSummary: 'again' } });
      const history = (await harness.call('GET', `/v1/proxy/providers/${m.provider.providerId}`, { token: a.token }))
        .body.verifications;
      assert.deepEqual(
        history.map((v: any) => v.proxyId),
        [m.proxyId, m2.proxyId],
      );
      assert.equal(
        (await harness.call('GET', `/v1/proxy/providers/${m.provider.providerId}`, { token: b.token })).status,
        404,
      );
      const verified = await harness.call('GET', '/v1/proxy/providers?status=verified', { token: a.token });
      assert.ok(verified.body.providers.some((p: any) => p.providerId === m.provider.providerId));
    },
  );

  it(
    'outcome: providerUnavailable resolves without verifying; failed fails the task; 400 bad status; 404 ' +
      "unknown or another account's; 401 without a token",
    async () => {
      const taskId = await newTask();
      const m = await create(
        mission(taskId, {
          context: { selectedProvider: { name: 'Rohr Express', phone: '+49 30 5550999' } },
          voiceCall: undefined,
        }),
      );
      assert.equal((await outcome(m.proxyId, { status: 'maybe' })).status, 400);
      assert.equal((await outcome(m.proxyId, { note: 'no status' })).status, 400);
      assert.equal((await outcome('prx_missing', { status: 'failed' })).status, 404);
      assert.equal((await outcome(m.proxyId, { status: 'failed' }, b.token)).status, 404);
      assert.equal(
        (await harness.call('POST', `/v1/proxy/missions/${m.proxyId}/outcome`, { body: { status: 'failed' } })).status,
        401,
      );
      const busy = await outcome(m.proxyId, { status: 'providerUnavailable', note: 'fully booked' });
      assert.deepEqual(
        [busy.status, busy.body.status, busy.body.verifiedProvider, busy.body.mission.provider.status],
        [200, 'resolved', null, 'unverified'],
      );
      const t2 = await newTask();
      const m2 = await create(mission(t2, { proofReq: [] }));
      assert.equal((await outcome(m2.proxyId, { status: 'failed', note: 'no answer' })).body.status, 'failed');
      assert.equal((await harness.call('GET', `/v1/tasks/${t2}`, { token: a.token })).body.task.status, 'failed');
    },
  );

  it(
    'confirming availability of a mission that names no provider needs availability.providerName, which enters ' +
      'the book verified',
    async () => {
      const m = await create({
        taskId: await newTask(),
        kind: 'message',
        reason: 'identityVerificationAndConsent',
        task: 'Have the notary confirm the ID check',
      });
      const res = await outcome(m.proxyId, { status: 'confirmedSuccess' });
      assert.equal(res.status, 400);
      assert.deepEqual(
        res.body.details.map((d: any) => d.path),
        ['/availability/providerName'],
      );
      const ok = await outcome(m.proxyId, {
        status: 'confirmedSuccess',
        availability: { providerName: 'Notary Weiss' },
      });
      assert.deepEqual(
        [ok.status, ok.body.verifiedProvider.name, ok.body.mission.provider.status],
        [200, 'Notary Weiss', 'verified'],
      );
    },
  );

  it('two outcomes racing on one mission: exactly one is accepted, the other is 409', async () => {
    const m = await create(mission(await newTask(), { proofReq: [] }));
    const [x, y] = await Promise.all([
      outcome(m.proxyId, { status: 'confirmedSuccess' }),
      outcome(m.proxyId, { status: 'failed' }),
    ]);
    assert.deepEqual([x.status, y.status].sort(), [200, 409]);
    const events = await harness.call('GET', '/v1/events?type=proxy.outcome', { token: a.token });
    assert.equal(
      events.body.events.filter((e: any) => e.payload.proxyId === m.proxyId).length,
      1,
      'one proxy.outcome event',
    );
  });

  it(
    'POST /v1/proxy/outcomes resolves exactly one open mission by reference: 404 for none, 409 when ambiguous, ' +
      '400 without a reference, 401 without a token',
    async () => {
      const t = await newTask();
      const one = await create(
        mission(t, {
          proofReq: [],
          context: { selectedProvider: { name: 'Bäckerei Sonne', providerId: 'cand-sun' } },
          voiceCall: undefined,
        }),
      );
      const two = await create(
        mission(t, {
          proofReq: [],
          context: { selectedProvider: { name: 'Bäckerei Sonne', providerId: 'cand-sun' } },
          voiceCall: undefined,
        }),
      );
      const post = (body: object, token = a.token) => harness.call('POST', '/v1/proxy/outcomes', { token, body });
      const ambiguous = await post({ status: 'failed', providerRef: 'cand-sun' });
      assert.equal(ambiguous.status, 409);
      assert.deepEqual(ambiguous.body.details.proxyIds.sort(), [one.proxyId, two.proxyId].sort());
      const byCallback = await post({ status: 'providerUnavailable', callbackRef: one.callbackRef });
      assert.deepEqual(
        [byCallback.status, byCallback.body.proxyId, byCallback.body.status],
        [200, one.proxyId, 'resolved'],
      );
      const byProvider = await post({ status: 'failed', providerRef: two.provider.providerId });
      assert.deepEqual(
        [byProvider.status, byProvider.body.proxyId],
        [200, two.proxyId],
        'one open mission left for the provider',
      );
      assert.equal((await post({ status: 'failed', providerRef: 'cand-sun' })).status, 404, 'none left open');
      assert.equal((await post({ status: 'failed', runId: 'run_none' })).status, 404);
      assert.equal((await post({ status: 'failed' })).status, 400);
      assert.equal((await post({ status: 'nope', proxyId: one.proxyId })).status, 400);
      const t2 = await newTask();
      const three = await create(mission(t2, { proofReq: [] }));
      assert.equal(
        (await post({ status: 'failed', proxyId: three.proxyId }, b.token)).status,
        404,
        "another account's mission",
      );
      assert.equal(
        (await post({ status: 'failed', proxyId: three.proxyId, callbackRef: one.callbackRef })).status,
        404,
        'every reference must match',
      );
      const byRequest = await harness.call('POST', '/v1/proxy/missions', {
        token: a.token,
        body: mission(t2, { proofReq: [] }),
        headers: { 'x-request-id': `req-ref-${t2}` },
      });
      assert.equal((await post({ status: 'failed', requestId: `req-ref-${t2}` })).body.proxyId, byRequest.body.proxyId);
      assert.equal(
        (await harness.call('POST', '/v1/proxy/outcomes', { body: { status: 'failed', proxyId: three.proxyId } }))
          .status,
        401,
      );
    },
  );

  it(
    'POST /v1/proxy/missions/{proxyId}/update takes, hands back and cancels a mission along the table; 409 off ' +
      'it, 400, 404, 401',
    async () => {
      const taskId = await newTask();
      const m = await create(mission(taskId));
      const update = (body: object, token = a.token, id = m.proxyId) =>
        harness.call('POST', `/v1/proxy/missions/${id}/update`, { token, body });
      const taken = await update({ status: 'inProgress', assignee: 'anna' });
      assert.deepEqual([taken.status, taken.body.status, taken.body.mission.assignee], [200, 'inProgress', 'anna']);
      assert.equal((await update({ status: 'open', note: 'cannot today' })).body.status, 'open');
      assert.equal((await update({ status: 'resolved' })).status, 400, 'an outcome resolves a mission, not an update');
      assert.equal((await update({ status: 'inProgress' }, b.token)).status, 404);
      assert.equal((await update({ status: 'inProgress' }, a.token, 'prx_missing')).status, 404);
      assert.equal(
        (await harness.call('POST', `/v1/proxy/missions/${m.proxyId}/update`, { body: { status: 'canceled' } })).status,
        401,
      );
      const canceled = await update({ status: 'canceled', note: 'no longer needed' });
      assert.deepEqual([canceled.status, canceled.body.status], [200, 'canceled']);
      assert.deepEqual(
        canceled.body.mission.history.map((h: any) => h.to),
        ['open', 'inProgress', 'open', 'canceled'],
      );
      assert.equal((await harness.call('GET', `/v1/tasks/${taskId}`, { token: a.token })).body.task.status, 'canceled');
      const off = await update({ status: 'inProgress' });
      assert.equal(off.status, 409);
      assert.deepEqual(off.body.details.allowed, []);
      assert.equal((await outcome(m.proxyId, { status: 'failed' })).status, 409, 'a canceled mission takes no outcome');
      const events = await harness.call('GET', '/v1/events?type=proxy.canceled', { token: a.token });
      assert.ok(
        events.body.events.some((e: any) => e.payload.proxyId === m.proxyId && e.payload.reason === 'no longer needed'),
      );
    },
  );

  it(
    'GET /v1/proxy/providers/{providerId}: 404 unknown; GET /v1/proxy/providers 400 for an unknown status, 401 ' +
      'without a token',
    async () => {
      assert.equal((await harness.call('GET', '/v1/proxy/providers/prov_missing', { token: a.token })).status, 404);
      assert.equal((await harness.call('GET', '/v1/proxy/providers?status=famous', { token: a.token })).status, 400);
      assert.equal((await harness.call('GET', '/v1/proxy/providers')).status, 401);
      assert.equal((await harness.call('GET', '/v1/proxy/providers/prov_missing')).status, 401);
    },
  );
});
