import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { pollUntilRest, seedCatalog } from '../support/runs.js';

/** Waits until the run's current segment has ended (its final event is written), then returns the run. */
async function settled(token: string, runId: string) {
  for (let i = 0; i < 400; i++) {
    const run = await pollUntilRest(token, runId);
    const final = await harness.deps
      .db('run_events')
      .where({ run_id: runId, type: 'final' })
      .whereRaw(`(data->>'segment')::int = ?`, [run.segment])
      .first();
    if (final) return run;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${runId} did not end its segment`);
}

/** The run's outbox events of the run.* family: exactly one per rest. */
async function runOutcomeEvents(runId: string) {
  return harness.deps
    .db('events')
    .where({ subject: runId })
    .whereIn('type', ['run.completed', 'run.failed', 'run.canceled'])
    .select('type');
}

describe('races between cancel, resume and finalize end in one consistent outcome', function () {
  this.timeout(120_000);
  let token: string;
  /** Metadata naming a mandate: a resumed choice buys, and its pay step settles under it, so the run ends ready. */
  let paid: { mandateId: string };
  before(async () => {
    let accountId: string;
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
    const task = await harness.call('POST', '/v1/tasks', { token, body: { domain: 'pay', inData: {} } });
    const mandate = await harness.call('POST', '/v1/pay/mandates', {
      token,
      body: { taskId: task.body.task.taskId, constraints: { maxSpend: { amount: 100_000, currency: 'USD' } } },
    });
    paid = { mandateId: mandate.body.mandateId };
  });

  it(
    'a cancel racing a run to its end: a 200 cancel means canceled, a 409 means it had finished; one terminal ' +
      'event each',
    async () => {
      const runs = await Promise.all(
        Array.from({ length: 24 }, () =>
          harness.call('POST', '/v1/orchestrator/run', {
            token,
            headers: { prefer: 'respond-async' },
            body: { request: 'find the cheapest espresso machine', domainRoute: ['hunt', 'resolve'] },
          }),
        ),
      );
      const cancels = await Promise.all(
        runs.map(
          (r, i) =>
            new Promise<Awaited<ReturnType<typeof harness.call>>>((resolve) =>
              setTimeout(() => resolve(harness.call('POST', `/v1/runs/${r.body.runId}/cancel`, { token })), i % 6),
            ),
        ),
      );
      for (let i = 0; i < runs.length; i++) {
        const runId = runs[i]!.body.runId;
        const run = await settled(token, runId);
        const cancel = cancels[i]!;
        assert.ok([200, 409].includes(cancel.status), cancel.text);
        assert.equal(
          run.status,
          cancel.status === 200 ? 'canceled' : 'ready',
          `run ${runId}: cancel answered ${cancel.status}`,
        );
        const events = await runOutcomeEvents(runId);
        assert.equal(events.length, 1, `one terminal event for ${runId}: ${JSON.stringify(events)}`);
        assert.equal(events[0].type, run.status === 'canceled' ? 'run.canceled' : 'run.completed');
      }
    },
  );

  it('ten concurrent cancels of one run: one 200, the rest 409, one run.canceled trace', async () => {
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: {
        request: 'shortlist espresso machines under $250 so I can choose one',
        conversationId: `conv-cc-${Date.now()}`,
      },
    });
    assert.equal(first.body.status, 'NEEDS_INPUT');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => harness.call('POST', `/v1/runs/${first.body.runId}/cancel`, { token })),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(9).fill(409)]);
    const traces = await harness.deps
      .db('run_events')
      .where({ run_id: first.body.runId, type: 'trace' })
      .select('data');
    assert.equal(traces.filter((t) => t.data.event === 'run.canceled').length, 1);
    assert.equal((await settled(token, first.body.runId)).status, 'canceled');
  });

  it('two resumes of one waitpoint, many times: one 202, one 409, and the run completes once', async () => {
    for (let i = 0; i < 8; i++) {
      const first = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: {
          request: 'shortlist espresso machines under $250 so I can choose one',
          conversationId: `conv-rr-${Date.now()}-${i}`,
          metadata: paid,
        },
      });
      const itemId = first.body.results.hunt.choices[0].itemId;
      const both = await Promise.all(
        [0, 1].map(() => harness.call('POST', `/v1/runs/${first.body.runId}/resume`, { token, body: { itemId } })),
      );
      assert.deepEqual(both.map((b) => b.status).sort(), [202, 409], both.map((b) => b.text).join(' | '));
      const run = await settled(token, first.body.runId);
      assert.equal(run.status, 'ready');
      assert.equal(run.segment, 1, 'one resume, one new segment');
      assert.equal((await runOutcomeEvents(first.body.runId)).length, 1);
    }
  });

  it('a resume racing a cancel: whichever wins, the run ends once and consistently', async () => {
    for (let i = 0; i < 8; i++) {
      const first = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: {
          request: 'shortlist espresso machines under $250 so I can choose one',
          conversationId: `conv-rc-${Date.now()}-${i}`,
          metadata: paid,
        },
      });
      const itemId = first.body.results.hunt.choices[0].itemId;
      const [resume, cancel] = await Promise.all([
        harness.call('POST', `/v1/runs/${first.body.runId}/resume`, { token, body: { itemId } }),
        harness.call('POST', `/v1/runs/${first.body.runId}/cancel`, { token }),
      ]);
      const run = await settled(token, first.body.runId);
      if (cancel.status === 200) assert.equal(run.status, 'canceled');
      else assert.equal(run.status, 'ready');
      assert.ok(resume.status === 202 || resume.status === 409, resume.text);
      assert.equal(
        (await runOutcomeEvents(first.body.runId)).length,
        1,
        `run ${first.body.runId}: resume ${resume.status}, cancel ${cancel.status}`,
      );
    }
  });
});
