import assert from 'node:assert/strict';
import { registerStepHandler } from '../../jobs/steps.js';
import type { StepHandler } from '../../jobs/step.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { pollUntilRest, seedCatalog } from '../support/runs.js';

/** Puts a step in place for a domain whose module has none yet, with a worker for its queue, for one test. */
async function withStep<T>(domain: string, step: StepHandler, fn: () => Promise<T>): Promise<T> {
  const release = registerStepHandler(domain, step);
  const workers = startWorkers(harness.deps, [domain]);
  try {
    return await fn();
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    release();
  }
}

describe('engine capabilities for domains: route extension, domain statuses, follow-ups', () => {
  let token: string;
  before(async () => {
    let accountId: string;
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });

  async function choose(conversationId: string) {
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'shortlist espresso machines under $250 so I can choose one', conversationId },
    });
    assert.equal(first.body.status, 'NEEDS_INPUT', first.text);
    return first.body;
  }

  it('a buy after a choice continues into pay, and the routing decision records the extension', async () => {
    const first = await choose(`conv-ext-${Date.now()}`);
    const chosen = first.results.hunt.choices[0];
    await withStep(
      'pay',
      async (input) => ({
        output: { paidFor: (input.prior.hunt?.selected as { itemId?: string })?.itemId ?? null },
        evidence: [],
        conversation: ['paid'],
      }),
      async () => {
        const resumed = await harness.call('POST', `/v1/runs/${first.runId}/resume`, {
          token,
          body: { itemId: chosen.itemId, action: 'buy' },
        });
        assert.equal(resumed.status, 202, resumed.text);
        const run = await pollUntilRest(token, first.runId);
        assert.equal(run.status, 'ready');
        assert.deepEqual(run.route, ['hunt', 'pay']);
        assert.deepEqual(
          run.routing.extensions.map((e: any) => [e.action, e.added]),
          [['buy', 'pay']],
        );
        assert.equal(run.result.results.pay.paidFor, chosen.itemId);
      },
    );
  });

  it('an action the waiting domain does not accept is 400 and leaves the waitpoint open', async () => {
    const first = await choose(`conv-bad-${Date.now()}`);
    const res = await harness.call('POST', `/v1/runs/${first.runId}/resume`, {
      token,
      body: { itemId: first.results.hunt.choices[0].itemId, action: 'proxyOutcome' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.details.accepted, ['buy', 'contact']);
    assert.equal((await harness.call('GET', `/v1/runs/${first.runId}`, { token })).body.run.status, 'NEEDS_INPUT');
  });

  it('a domain ends a run with a final status of its own; an undeclared one is ignored', async () => {
    let status = 'blocked';
    await withStep(
      'delivery',
      async () => ({ output: { gate: 'refused' }, evidence: [], conversation: ['gate refused'], finalStatus: status }),
      async () => {
        const blocked = await harness.call('POST', '/v1/orchestrator/run', {
          token,
          body: { request: 'ship it', domainRoute: ['delivery'] },
        });
        assert.equal(blocked.status, 200, blocked.text);
        assert.equal(blocked.body.status, 'blocked');
        const run = (await harness.call('GET', `/v1/runs/${blocked.body.runId}`, { token })).body.run;
        assert.equal(run.status, 'blocked');
        assert.ok(run.finishedAt, 'a final status finishes the run');
        const events = await harness.call('GET', `/v1/events?type=run.failed`, { token });
        assert.ok(
          events.body.events.some((e: any) => e.payload.runId === blocked.body.runId && e.payload.status === 'blocked'),
          'blocked counts as a failure',
        );
        status = 'madeUp';
        const plain = await harness.call('POST', '/v1/orchestrator/run', {
          token,
          body: { request: 'ship it', domainRoute: ['delivery'] },
        });
        assert.equal(plain.body.status, 'ready');
      },
    );
  });

  it('a short follow-up in a conversation whose run finished keeps its route (orchestrator and nlp)', async () => {
    const conversationId = `conv-follow-${Date.now()}`;
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find the cheapest espresso machine under $1000', conversationId },
    });
    assert.equal(first.body.status, 'ready', first.text);
    const nlp = await harness.call('POST', '/v1/tools/nlp', {
      token,
      body: { query: 'and what about the cheaper one?', conversationId },
    });
    assert.equal(nlp.status, 200, nlp.text);
    assert.equal(nlp.body.followUp.detected, true);
    assert.deepEqual(nlp.body.route, ['hunt']);
    const next = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'and what about the cheaper one?', conversationId },
    });
    assert.equal(next.status, 200, next.text);
    const run = (await harness.call('GET', `/v1/runs/${next.body.runId}`, { token })).body.run;
    assert.equal(run.routing.followUp, true);
    assert.deepEqual(run.route, ['hunt']);
  });

  it(
    'a step that hands back malformed evidence fails its ' + 'run naming the field, and nothing malformed is stored',
    async () => {
      const release = registerStepHandler('resolve', async () => ({
        output: {},
        evidence: [{ claim: 42, source: null, sourceBound: 'yes' }] as never,
        conversation: ['done'],
      }));
      try {
        const res = await harness.call('POST', '/v1/orchestrator/run', {
          token,
          body: { request: 'audit this', domainRoute: ['resolve'] },
        });
        assert.equal(res.body.status, 'failed', res.text);
        assert.match(res.body.error, /resolve step outcome \(evidence\) does not match StepEvidence: \/0\/claim/);
        const run = (await harness.call('GET', `/v1/runs/${res.body.runId}`, { token })).body.run;
        assert.equal(run.steps[0].status, 'failed');
      } finally {
        release();
      }
    },
  );

  it('a step job whose data does not match its schema fails at once instead of retrying', async () => {
    const job = await harness.deps.queues
      .queue('resolve')
      .add('step', { runId: 'run_x', segment: 'zero' }, { attempts: 3 });
    for (let i = 0; i < 100 && !(await job.isFailed()); i++) await new Promise((r) => setTimeout(r, 50));
    const failed = await harness.deps.queues.queue('resolve').getJob(job.id!);
    assert.equal(await failed!.isFailed(), true);
    assert.equal(failed!.attemptsMade, 1, 'no retries');
    assert.match(failed!.failedReason, /step job data does not match StepJobData/);
  });

  it(
    'a step that asks to rest at a status its module ' + 'does not declare fails its run instead of stranding ' + 'it',
    async () => {
      const release = registerStepHandler('resolve', async () => ({
        output: {},
        evidence: [],
        conversation: ['wait'],
        suspend: { kind: 'awaitingGodot', payload: {} },
      }));
      try {
        const res = await harness.call('POST', '/v1/orchestrator/run', {
          token,
          body: { request: 'audit this', domainRoute: ['resolve'] },
        });
        assert.equal(res.body.status, 'failed', res.text);
        assert.match(res.body.error, /rest at awaitingGodot/);
      } finally {
        release();
      }
    },
  );
});
