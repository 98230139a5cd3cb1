import assert from 'node:assert/strict';
import { sweeps } from '../../jobs/clock/sweeps.js';
import { sweepDeadlines } from '../../jobs/resolve/cases/review.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

describe('case flows: the clock reviews deadlines, runs and templates open or attach to cases', function () {
  this.timeout(60_000);
  let token: string;
  before(async () => {
    ({ token } = await harness.account());
  });
  const post = (path: string, body: object) => harness.call('POST', path, { token, body });
  const get = (path: string) => harness.call('GET', path, { token });
  const timeline = async (caseId: string) =>
    (await get(`/v1/cases/${caseId}/timeline?limit=200`)).body.entries as any[];

  it(
    'the clock runs the deadline review every 5 minutes: an overdue open deadline becomes missed once, through ' +
      'the clock queue and its worker',
    async () => {
      assert.deepEqual(
        [sweeps()['cases.deadlines']!.cron, sweeps()['cases.deadlines']!.run],
        ['*/5 * * * *', sweepDeadlines],
      );
      const caseId = (await post('/v1/cases', { title: 'Lease dispute' })).body.case.caseId;
      const overdue = (
        await post(`/v1/cases/${caseId}/deadlines`, {
          title: 'Deposit back',
          dueAt: new Date(Date.now() - 60_000).toISOString(),
        })
      ).body.deadline.deadlineId;
      const later = (
        await post(`/v1/cases/${caseId}/deadlines`, { title: 'Court date', dueAt: '2032-01-01T00:00:00Z' })
      ).body.deadline.deadlineId;
      const clock = startWorkers(harness.deps, ['clock']);
      try {
        for (const n of [1, 2]) {
          // What the clock's tick does: enqueue the sweep by name on the clock queue.
          const job = await harness.deps.queues
            .queue('clock')
            .add('cases.deadlines', {}, { jobId: `cases.deadlines.test-${Date.now()}-${n}` });
          await until(async () => (await job.isCompleted()) || (await job.isFailed()), Boolean, 20_000);
          assert.equal(await job.isCompleted(), true, `sweep ${n} completed`);
        }
      } finally {
        for (const part of clock) await part.stop();
      }
      const deadlines = (await get(`/v1/cases/${caseId}`)).body.case.deadlines;
      assert.deepEqual(
        deadlines.map((d: any) => [d.deadlineId, d.status]),
        [
          [overdue, 'missed'],
          [later, 'open'],
        ],
      );
      const entries = (await timeline(caseId)).filter((e) => e.kind === 'deadline.missed');
      assert.deepEqual(
        entries.map((e) => [e.actor, e.data.deadlineId]),
        [['clock', overdue]],
      );
      const events = (await get('/v1/events?type=case.deadline.missed&limit=200')).body.events.filter(
        (e: any) => e.payload.caseId === caseId,
      );
      assert.equal(events.length, 1, 'missed once, however many reviews');
      assert.deepEqual((await post(`/v1/cases/${caseId}/deadlines/review`, {})).body.missed, []);
    },
  );

  it(
    'a template run with metadata.caseKey opens the case and links itself with its proof card; a run with ' +
      'metadata.caseId attaches to it; GET /v1/cases?runId= finds the case',
    async () => {
      const first = await post('/v1/workflows/templates/auditDisputedClaim/run', {
        templateId: 'auditDisputedClaim',
        claim: 'I was charged $450 but the invoice says $300',
        documents: ['Invoice total: $300'],
        metadata: { caseKey: 'claim-450', caseTitle: 'Overcharge claim' },
      });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.results.resolve.case.created, true);
      const caseId = first.body.results.resolve.case.caseId;
      const opened = (await get(`/v1/cases/${caseId}`)).body.case;
      assert.deepEqual([opened.externalKey, opened.title, opened.status], ['claim-450', 'Overcharge claim', 'open']);

      const second = await post('/v1/orchestrator/run', {
        request: 'audit this vendor brochure for contradictions',
        domainRoute: ['resolve'],
        metadata: { caseId },
      });
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(second.body.results.resolve.case, { caseId, created: false });
      const again = await post('/v1/workflows/templates/vendorDueDiligence/run', {
        templateId: 'vendorDueDiligence',
        vendorName: 'Acme',
        documents: ['ISO 9001 certified'],
        metadata: { caseKey: 'claim-450' },
      });
      assert.deepEqual(
        again.body.results.resolve.case,
        { caseId, created: false },
        'the upsert key finds the same case',
      );

      const entries = await timeline(caseId);
      const linked = entries.filter((e) => e.kind === 'run.linked').map((e) => e.refs[0].id);
      assert.deepEqual(linked, [first.body.runId, second.body.runId, again.body.runId]);
      const cards = entries.filter((e) => e.kind === 'run.proofCard').map((e) => e.refs.map((r: any) => r.id));
      assert.deepEqual(cards, [
        [first.body.proofCard.cardId, first.body.runId],
        [second.body.proofCard.cardId, second.body.runId],
        [again.body.proofCard.cardId, again.body.runId],
      ]);
      assert.equal(entries[0].kind, 'case.created');
      const times = entries.map((e) => Date.parse(e.at));
      assert.deepEqual(
        times,
        [...times].sort((x, y) => x - y),
      );
      assert.deepEqual(
        (await get(`/v1/cases?runId=${second.body.runId}`)).body.cases.map((c: any) => c.caseId),
        [caseId],
      );

      const unknown = await post('/v1/orchestrator/run', {
        request: 'audit this vendor brochure for contradictions',
        domainRoute: ['resolve'],
        metadata: { caseId: 'case_missing' },
      });
      assert.equal(unknown.body.results.resolve.case, undefined);
      assert.ok(
        unknown.body.proofCard.openQuestions.some((q: string) => q.includes('case_missing')),
        unknown.text,
      );
    },
  );

  it(
    'a case opened for a run links it from the start, and ' + 'the proxy missions of its task show on the timeline',
    async () => {
      const run = await post('/v1/orchestrator/run', {
        request: 'audit this invoice for hidden fees',
        domainRoute: ['resolve'],
      });
      const taskId = (await post('/v1/tasks', { domain: 'proxy', inData: {} })).body.task.taskId;
      const caseId = (await post('/v1/cases', { title: 'Invoice review', runId: run.body.runId, taskId })).body.case
        .caseId;
      const mission = (
        await post('/v1/proxy/missions', {
          taskId,
          kind: 'review',
          reason: 'humanReviewerNeeded',
          task: 'Look over the invoice',
        })
      ).body.proxyId;
      const entries = await timeline(caseId);
      assert.deepEqual(entries.map((e) => e.kind).sort(), [
        'case.created',
        'mission.linked',
        'run.linked',
        'run.proofCard',
      ]);
      assert.deepEqual(entries.find((e) => e.kind === 'mission.linked').refs[0], { kind: 'mission', id: mission });
    },
  );
});
