import assert from 'node:assert/strict';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';
import { seedCatalog } from '../support/runs.js';

const KIEZ = 'call Kiez Plumbing at +49 30 5550123 and confirm they can fix the leak tomorrow';

describe('proxy runs: a run rests at awaitingProxy and resumes exactly once with the outcome', function () {
  this.timeout(60_000);
  let token: string;
  before(async () => {
    let accountId: string;
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });

  const run = (body: object) => harness.call('POST', '/v1/orchestrator/run', { token, body });
  const resumedEvents = async (runId: string) =>
    (await harness.deps.db('run_events').where({ run_id: runId, type: 'trace' })).filter(
      (e) => e.data.event === 'run.resumed',
    );

  it(
    'the router sends a call through proxy: the mission is built from the request and consent, a task is made, ' +
      'and the run rests at awaitingProxy naming the mission',
    async () => {
      const res = await run({ request: KIEZ, consentToCall: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.status, res.body.route], ['awaitingProxy', ['proxy']]);
      const out = res.body.results.proxy;
      assert.match(out.proxyId, /^prx_/);
      assert.deepEqual(
        [out.kind, out.reason, out.voiceCall.phone, out.selectedProvider.name, out.dispatch.voiceCall.status],
        ['call', 'localServiceAvailability', '+49305550123', 'Kiez Plumbing', 'notSent'],
      );
      assert.ok(
        res.body.proofCard.openQuestions.some((q: string) => q.includes(out.proxyId)),
        'the proof card asks for the mission',
      );
      const detail = (await harness.call('GET', `/v1/runs/${res.body.runId}`, { token })).body.run;
      assert.equal(detail.waitpoint.kind, 'awaitingProxy');
      assert.equal(detail.taskId, out.taskId, 'the task the step made belongs to the run');
      const task = (await harness.call('GET', `/v1/tasks/${out.taskId}`, { token })).body.task;
      assert.deepEqual([task.domain, task.status], ['proxy', 'awaitingProxy']);
      const mission = (await harness.call('GET', `/v1/proxy/missions/${out.proxyId}`, { token })).body.mission;
      assert.deepEqual([mission.runId, mission.status, mission.proofReq], [res.body.runId, 'open', ['callSummary']]);
    },
  );

  it('without consent no call is placed: a message mission is offered instead, saying why', async () => {
    const res = await run({ request: KIEZ });
    assert.equal(res.body.status, 'awaitingProxy', res.text);
    const out = res.body.results.proxy;
    assert.deepEqual(
      [out.kind, out.voiceCall, out.channelMsg.channel, out.channelMsg.to, out.consentToCall],
      ['message', null, 'sms', '+49305550123', false],
    );
    assert.ok(
      res.body.agentConversation.some((l: string) =>
        /No call will be placed: the request did not give consentToCall/.test(l),
      ),
    );
  });

  it(
    'three outcomes racing (outcome route, by reference, proxyOutcome follow-up): one wins, the run resumes ' +
      'exactly once and ends ready',
    async () => {
      const conversationId = `conv-race-${Date.now()}`;
      const first = await run({ request: KIEZ, consentToCall: true, conversationId });
      const { proxyId, taskId } = first.body.results.proxy;
      const outcome = {
        status: 'confirmedSuccess',
        note: 'tomorrow 9am',
        availability: { status: 'available', availableAt: '2026-12-02T09:00:00Z' },
        proof: { callSummary: 'Anna confirmed 9am' },
      };
      const answers = await Promise.all([
        harness.call('POST', `/v1/proxy/missions/${proxyId}/outcome`, { token, body: outcome }),
        harness.call('POST', '/v1/proxy/outcomes', { token, body: { ...outcome, runId: first.body.runId } }),
        harness.call('POST', '/v1/orchestrator/run', {
          token,
          body: { request: 'they confirmed', conversationId, action: 'proxyOutcome', metadata: { outcome } },
        }),
      ]);
      const wins = answers.filter((r) => r.status === 200);
      assert.equal(wins.length, 1, answers.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('\n'));
      assert.ok(
        answers.filter((r) => r !== wins[0]).every((r) => r.status === 409),
        answers.map((r) => r.status).join(','),
      );
      const done = await until(
        async () => (await harness.call('GET', `/v1/runs/${first.body.runId}`, { token })).body.run,
        (r) => r.status === 'ready' && Boolean(r.result),
        20_000,
      );
      assert.equal((await resumedEvents(first.body.runId)).length, 1, 'one run.resumed');
      assert.equal(
        (await harness.deps.db('run_events').where({ run_id: first.body.runId, type: 'final' })).length,
        2,
        'one final at the rest, one at the end',
      );
      const result = done.result.results.proxy;
      assert.deepEqual(
        [result.missionStatus, result.outcome.status, result.verifiedProvider.name],
        ['resolved', 'confirmedSuccess', 'Kiez Plumbing'],
      );
      assert.deepEqual(done.result.proofCard.evidenceStatus, 'sourceBound');
      assert.equal((await harness.call('GET', `/v1/tasks/${taskId}`, { token })).body.task.status, 'completed');
      const events = (await harness.call('GET', '/v1/events?type=proxy.outcome', { token })).body.events.filter(
        (e: any) => e.payload.proxyId === proxyId,
      );
      assert.equal(events.length, 1);
      assert.deepEqual(
        [events[0].payload.runId, events[0].payload.taskId, events[0].payload.status],
        [first.body.runId, taskId, 'confirmedSuccess'],
      );
    },
  );

  it(
    'a contact after a hunt choice continues into proxy with the chosen candidate; the proxyOutcome follow-up ' +
      'resumes it; a bad outcome is 400 and leaves it waiting',
    async () => {
      const conversationId = `conv-contact-${Date.now()}`;
      const first = await run({
        request: 'shortlist espresso machines under $250 so I can choose one',
        conversationId,
        consentToCall: true,
      });
      assert.equal(first.body.status, 'NEEDS_INPUT', first.text);
      const chosen = first.body.results.hunt.choices[0];
      const contact = await run({
        request: 'contact that one',
        conversationId,
        itemId: chosen.itemId,
        action: 'contact',
      });
      assert.equal(contact.status, 200, contact.text);
      assert.deepEqual([contact.body.status, contact.body.route], ['awaitingProxy', ['hunt', 'proxy']]);
      const detail = (await harness.call('GET', `/v1/runs/${first.body.runId}`, { token })).body.run;
      assert.deepEqual(
        detail.routing.extensions.map((e: any) => [e.action, e.added]),
        [['contact', 'proxy']],
      );
      const out = contact.body.results.proxy;
      assert.deepEqual(
        [out.kind, out.selectedProvider.name, out.selectedProvider.providerId, out.selectedProvider.source],
        ['call', chosen.vendor, chosen.itemId, 'hunt'],
      );
      const bad = await run({
        request: 'done',
        conversationId,
        action: 'proxyOutcome',
        metadata: { outcome: { status: 'maybe' } },
      });
      assert.equal(bad.status, 400);
      assert.ok(bad.body.details.some((d: any) => d.path === '/metadata/outcome/status'));
      const noProof = await run({
        request: 'done',
        conversationId,
        action: 'proxyOutcome',
        metadata: { outcome: { status: 'confirmedSuccess' } },
      });
      assert.equal(noProof.status, 400);
      assert.match(noProof.body.message, /callSummary/);
      assert.equal(
        (await harness.call('GET', `/v1/runs/${first.body.runId}`, { token })).body.run.status,
        'awaitingProxy',
      );
      const done = await run({
        request: 'they can deliver',
        conversationId,
        action: 'proxyOutcome',
        metadata: { outcome: { status: 'confirmedSuccess', proof: { callSummary: 'in stock, ships Monday' } } },
      });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.status, 'ready');
      assert.equal(done.body.results.proxy.verifiedProvider.name, chosen.vendor);
    },
  );

  it(
    'POST /v1/runs/{runId}/resume with proxyOutcome goes through the mission; another action is 400; canceling ' +
      'the mission resumes the run, which fails saying so',
    async () => {
      const first = await run({ request: KIEZ, consentToCall: true });
      const { proxyId } = first.body.results.proxy;
      const wrong = await harness.call('POST', `/v1/runs/${first.body.runId}/resume`, {
        token,
        body: { action: 'buy' },
      });
      assert.equal(wrong.status, 400);
      assert.deepEqual(wrong.body.details.accepted, ['proxyOutcome']);
      const canceled = await harness.call('POST', `/v1/proxy/missions/${proxyId}/update`, {
        token,
        body: { status: 'canceled', note: 'plumber no longer needed' },
      });
      assert.deepEqual([canceled.status, canceled.body.run.resumed], [200, true], canceled.text);
      const done = await until(
        async () => (await harness.call('GET', `/v1/runs/${first.body.runId}`, { token })).body.run,
        (r) => r.status === 'failed' && Boolean(r.result),
        20_000,
      );
      assert.match(done.error, /proxy mission .* ended canceled/);
      const late = await harness.call('POST', `/v1/runs/${first.body.runId}/resume`, {
        token,
        body: { action: 'proxyOutcome', data: { outcome: { status: 'failed' } } },
      });
      assert.equal(late.status, 409);

      const second = await run({ request: KIEZ, consentToCall: true, domainRoute: ['proxy', 'resolve'] });
      const resumed = await harness.call('POST', `/v1/runs/${second.body.runId}/resume`, {
        token,
        body: { action: 'proxyOutcome', data: { outcome: { status: 'providerUnavailable', note: 'on holiday' } } },
      });
      assert.equal(resumed.status, 202, resumed.text);
      const stopped = await until(
        async () => (await harness.call('GET', `/v1/runs/${second.body.runId}`, { token })).body.run,
        (r) => r.status === 'failed' && Boolean(r.result),
        20_000,
      );
      assert.match(stopped.error, /providerUnavailable \(on holiday\).*does not go on into resolve/);
    },
  );

  it(
    'the clock expires a mission: the proxy.expire sweep writes proxy.expired and the run waiting on it ' +
      'resumes to fail saying so',
    async () => {
      const first = await run({ request: KIEZ, consentToCall: true });
      const { proxyId } = first.body.results.proxy;
      const standaloneTask = (await harness.call('POST', '/v1/tasks', { token, body: { domain: 'proxy', inData: {} } }))
        .body.task.taskId;
      const standalone = (
        await harness.call('POST', '/v1/proxy/missions', {
          token,
          body: { taskId: standaloneTask, kind: 'review', reason: 'humanReviewerNeeded', task: 'Look over the quote' },
        })
      ).body.proxyId;
      await harness.deps
        .db('proxy_missions')
        .whereIn('id', [proxyId, standalone])
        .update({ expires_at: harness.deps.db.raw(`now() - interval '1 minute'`) });
      const clock = startWorkers(harness.deps, ['clock']);
      try {
        // What the clock's tick does: enqueue the sweep by name on the clock queue.
        await harness.deps.queues.queue('clock').add('proxy.expire', {}, { jobId: `proxy.expire.test-${Date.now()}` });
        const done = await until(
          async () => (await harness.call('GET', `/v1/runs/${first.body.runId}`, { token })).body.run,
          (r) => r.status === 'failed' && Boolean(r.result),
          20_000,
        );
        assert.match(done.error, new RegExp(`proxy mission ${proxyId} ended expired with no outcome`));
      } finally {
        for (const part of clock) await part.stop();
      }
      for (const id of [proxyId, standalone])
        assert.equal((await harness.call('GET', `/v1/proxy/missions/${id}`, { token })).body.status, 'expired');
      assert.equal((await harness.call('GET', `/v1/tasks/${standaloneTask}`, { token })).body.task.status, 'failed');
      const expired = (await harness.call('GET', '/v1/events?type=proxy.expired', { token })).body.events.map(
        (e: any) => e.payload.proxyId,
      );
      assert.ok(expired.includes(proxyId) && expired.includes(standalone));
      assert.equal((await resumedEvents(first.body.runId)).length, 1);
    },
  );

  it('coordinateHumanProcess runs through proxy', async () => {
    const res = await harness.call('POST', '/v1/workflows/templates/coordinateHumanProcess/run', {
      token,
      body: { templateId: 'coordinateHumanProcess', request: 'have a person review the lease before I sign it' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.status, res.body.results.proxy.kind, res.body.results.proxy.reason],
      ['awaitingProxy', 'review', 'humanReviewerNeeded'],
    );
  });

  it(
    'the proxy.outcome webhook reaches a subscriber signed per Standard Webhooks (verified with ' + 'standardwebhooks)',
    async () => {
      const secrets: string[] = [];
      const rx = await startReceiver(() => secrets);
      try {
        const sub = await harness.call('POST', '/v1/event-subscriptions', {
          token,
          body: { endpoint: rx.url, events: ['proxy.*'] },
        });
        assert.equal(sub.status, 201, sub.text);
        secrets.push(sub.body.secret);
        const first = await run({ request: KIEZ, consentToCall: true });
        const { proxyId, taskId } = first.body.results.proxy;
        const res = await harness.call('POST', `/v1/proxy/missions/${proxyId}/outcome`, {
          token,
          body: { status: 'confirmedSuccess', proof: { callSummary: 'confirmed' } },
        });
        assert.equal(res.status, 200, res.text);
        const got = await until(
          () => rx.received.filter((r) => r.body.data.proxyId === proxyId),
          (l) => l.length >= 1,
        );
        assert.equal(rx.rejected.length, 0);
        assert.equal(got[0]!.body.type, 'proxy.outcome');
        assert.deepEqual(
          [got[0]!.body.data.proxyId, got[0]!.body.data.taskId, got[0]!.body.data.status, got[0]!.body.data.runId],
          [proxyId, taskId, 'confirmedSuccess', first.body.runId],
        );
        assert.equal(got[0]!.body.subject, proxyId);
        assert.equal(got[0]!.body.data.verifiedProviderId, res.body.verifiedProvider.providerId);
      } finally {
        await rx.stop();
      }
    },
  );
});
