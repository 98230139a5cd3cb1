import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { pollUntilRest, seedCatalog } from '../support/runs.js';

const huntTarget = { request: { request: 'find an espresso machine under $160', domainRoute: ['hunt'] } };

describe('schedules', () => {
  let a: { token: string; accountId: string };
  let b: { token: string; accountId: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    await seedCatalog(a.accountId);
  });
  const create = (token: string, body: Record<string, unknown> = {}) =>
    harness.call('POST', '/v1/schedules', {
      token,
      body: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', target: huntTarget, ...body },
    });

  it('creates a schedule and fetches it with its next five fire times in its zone', async () => {
    const res = await create(a.token, { name: 'weekday mornings', overlap: 'allow', catchUp: 'once' });
    assert.equal(res.status, 201, res.text);
    const s = res.body.schedule;
    assert.match(s.scheduleId, /^sch_/);
    assert.deepEqual(
      [s.name, s.cron, s.timezone, s.overlap, s.catchUp, s.status],
      ['weekday mornings', '0 9 * * 1-5', 'Europe/Berlin', 'allow', 'once', 'active'],
    );
    const got = await harness.call('GET', `/v1/schedules/${s.scheduleId}`, { token: a.token });
    assert.equal(got.status, 200);
    const times: string[] = got.body.nextFireTimes;
    assert.equal(times.length, 5);
    assert.equal(times[0], s.nextFireAt);
    for (const t of times) {
      const local = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
        hour12: false,
      }).format(new Date(t));
      assert.match(local, /^(Mon|Tue|Wed|Thu|Fri) 09:00$/, `${t} is ${local} in Berlin`);
    }
    assert.deepEqual([...times].sort(), times);
    const defaults = (await create(a.token, { timezone: undefined, cron: '*/15 * * * * *' })).body.schedule;
    assert.deepEqual(
      [defaults.timezone, defaults.overlap, defaults.catchUp, defaults.name],
      ['UTC', 'skip', 'none', '*/15 * * * * *'],
    );
    assert.ok(
      (await harness.call('GET', '/v1/schedules', { token: a.token })).body.schedules.some(
        (x: any) => x.scheduleId === s.scheduleId,
      ),
    );
    // A schedule due every 15 s would fire under any clock a later test starts.
    await harness.call('DELETE', `/v1/schedules/${defaults.scheduleId}`, { token: a.token });
  });

  it('pause, resume, trigger now (a run through the queue and worker), delete', async () => {
    const s = (await create(a.token)).body.schedule;
    const paused = await harness.call('POST', `/v1/schedules/${s.scheduleId}/pause`, { token: a.token });
    assert.deepEqual(
      [paused.status, paused.body.schedule.status, paused.body.schedule.nextFireAt],
      [200, 'paused', null],
    );
    assert.equal((await harness.call('POST', `/v1/schedules/${s.scheduleId}/pause`, { token: a.token })).status, 409);
    assert.deepEqual(
      (await harness.call('GET', `/v1/schedules/${s.scheduleId}`, { token: a.token })).body.nextFireTimes,
      [],
    );
    const resumed = await harness.call('POST', `/v1/schedules/${s.scheduleId}/resume`, { token: a.token });
    assert.equal(resumed.body.schedule.status, 'active');
    assert.ok(new Date(resumed.body.schedule.nextFireAt) > new Date());
    assert.equal((await harness.call('POST', `/v1/schedules/${s.scheduleId}/resume`, { token: a.token })).status, 409);

    const fired = await harness.call('POST', `/v1/schedules/${s.scheduleId}/trigger`, { token: a.token });
    assert.equal(fired.status, 200, fired.text);
    assert.deepEqual([fired.body.firing.trigger, fired.body.firing.outcome], ['manual', 'started']);
    const run = await pollUntilRest(a.token, fired.body.firing.runId);
    assert.equal(run.status, 'ready');
    const row = await harness.deps.db('runs').where({ id: fired.body.firing.runId }).first();
    assert.equal(row.input.metadata.awp.scheduleId, s.scheduleId);
    const event = await harness.deps.db('events').where({ type: 'schedule.fired', subject: s.scheduleId }).first();
    assert.deepEqual(
      [event.payload.firingId, event.payload.runId, event.payload.outcome],
      [fired.body.firing.firingId, fired.body.firing.runId, 'started'],
    );
    const detail = await harness.call('GET', `/v1/schedules/${s.scheduleId}`, { token: a.token });
    assert.deepEqual(
      detail.body.recentFirings.map((f: any) => f.firingId),
      [fired.body.firing.firingId],
    );

    assert.equal((await harness.call('DELETE', `/v1/schedules/${s.scheduleId}`, { token: a.token })).status, 200);
    assert.equal((await harness.call('GET', `/v1/schedules/${s.scheduleId}`, { token: a.token })).status, 404);
    assert.ok(await harness.deps.db('runs').where({ id: fired.body.firing.runId }).first(), 'the run it started stays');
  });

  it(
    'overlap skip: a trigger while the last run is ' + 'still going records skippedOverlap and starts ' + 'nothing',
    async () => {
      const s = (await create(a.token)).body.schedule;
      const first = (await harness.call('POST', `/v1/schedules/${s.scheduleId}/trigger`, { token: a.token })).body
        .firing;
      // Once the worker is done with it, the run is put back to running: a run still going, as far as the schedule can
      // tell.
      await pollUntilRest(a.token, first.runId);
      await harness.deps.db('runs').where({ id: first.runId }).update({ status: 'running' });
      const second = (await harness.call('POST', `/v1/schedules/${s.scheduleId}/trigger`, { token: a.token })).body
        .firing;
      assert.deepEqual([second.outcome, second.runId], ['skippedOverlap', null]);
      await harness.deps.db('runs').where({ id: first.runId }).update({ status: 'ready' });
      assert.equal(
        (await harness.call('POST', `/v1/schedules/${s.scheduleId}/trigger`, { token: a.token })).body.firing.outcome,
        'started',
      );
    },
  );

  it('a quota refusal is recorded on the firing, not lost', async () => {
    const starter = await harness.account({ activated: false });
    await harness.deps
      .db('accounts')
      .where({ id: starter.accountId })
      .update({ unverified_used: harness.config.UNVERIFIED_REQUEST_LIMIT });
    const s = (await create(starter.token)).body.schedule;
    const firing = (await harness.call('POST', `/v1/schedules/${s.scheduleId}/trigger`, { token: starter.token })).body
      .firing;
    assert.deepEqual([firing.outcome, firing.runId], ['refused', null]);
    assert.match(firing.reason, /limited to/);
  });

  it("400 for an invalid cron, zone, policy or target; 401; 404; another account's schedule is 404", async () => {
    const bad = await create(a.token, { cron: '99 * * * *' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /cron/);
    const zone = await create(a.token, { timezone: 'Europe/Atlantis' });
    assert.equal(zone.status, 400);
    assert.match(zone.body.message, /IANA/);
    assert.equal((await create(a.token, { cron: '* * *' })).status, 400);
    assert.equal((await create(a.token, { overlap: 'queue' })).status, 400);
    assert.equal((await create(a.token, { catchUp: 'all' })).status, 400);
    assert.equal((await create(a.token, { target: { templateId: 'nope' } })).status, 400);
    assert.equal((await create(a.token, { target: undefined })).status, 400);

    for (const [method, path] of [
      ['POST', '/v1/schedules'],
      ['GET', '/v1/schedules'],
      ['GET', '/v1/schedules/sch_x'],
      ['POST', '/v1/schedules/sch_x/pause'],
      ['POST', '/v1/schedules/sch_x/resume'],
      ['POST', '/v1/schedules/sch_x/trigger'],
      ['DELETE', '/v1/schedules/sch_x'],
    ] as const) {
      assert.equal((await harness.call(method, path)).status, 401, `${method} ${path}`);
      if (path !== '/v1/schedules')
        assert.equal((await harness.call(method, path, { token: a.token })).status, 404, `${method} ${path}`);
    }
    const mine = (await create(a.token)).body.schedule.scheduleId;
    for (const [method, path] of [
      ['GET', ''],
      ['POST', '/pause'],
      ['POST', '/resume'],
      ['POST', '/trigger'],
      ['DELETE', ''],
    ] as const) {
      assert.equal(
        (await harness.call(method, `/v1/schedules/${mine}${path}`, { token: b.token })).status,
        404,
        `${method} ${path}`,
      );
    }
    assert.ok(
      !(await harness.call('GET', '/v1/schedules', { token: b.token })).body.schedules.some(
        (x: any) => x.scheduleId === mine,
      ),
    );
    assert.equal(
      (await harness.call('GET', `/v1/schedules/${mine}`, { token: a.token })).body.schedule.status,
      'active',
      'untouched by the other account',
    );
  });
});
