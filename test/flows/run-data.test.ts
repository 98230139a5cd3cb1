import assert from 'node:assert/strict';
import { segmentStart } from '../../jobs/orchestrator/flow.js';
import { ProofCard } from '../../jobs/orchestrator/proof-schemas.js';
import {
  ChoiceWaitpointPayload,
  DecisionLog,
  StepConversation,
  StepEvidence,
  StepExtra,
  StepJobData,
  StepOutput,
} from '../../shared/schemas/run-data.js';
import { RunInput, WaitpointResolution } from '../../jobs/orchestrator/schemas.js';
import { readAs } from '../../shared/validation.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

/**
 * The run-data schemas describe what the engine writes today: every row of a
 * real run (a choice, its answer, a template run) is read back through them.
 * A writer that changes shape without its schema fails here.
 */
describe('stored run data reads back through its schemas', () => {
  let token: string;
  let accountId: string;
  before(async () => {
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });

  async function readRun(runId: string) {
    const db = harness.deps.db;
    const run = await db('runs').where({ id: runId }).first();
    const input = readAs(RunInput, run.input, `runs.input of ${runId}`);
    const steps = await db('run_steps').where({ run_id: runId, status: 'completed' });
    assert.ok(steps.length > 0);
    for (const s of steps) {
      readAs(StepOutput, s.output, `run_steps.output of ${s.id}`);
      readAs(StepEvidence, s.evidence, `run_steps.evidence of ${s.id}`);
      readAs(StepConversation, s.conversation, `run_steps.conversation of ${s.id}`);
      readAs(StepExtra, s.extra, `run_steps.extra of ${s.id}`);
    }
    const cards = await db('proof_cards').where({ run_id: runId });
    assert.ok(cards.length > 0);
    for (const c of cards) {
      readAs(ProofCard, c.card, `proof_cards.card of ${c.id}`);
      readAs(DecisionLog, c.decision, `proof_cards.decision of ${c.id}`);
    }
    return { input, steps, waitpoints: await db('waitpoints').where({ run_id: runId }) };
  }

  it('a choice and its answer: input, steps, waitpoint payload and resolution, proof cards', async () => {
    const conversationId = `conv-data-${Date.now()}`;
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: {
        request: 'shortlist espresso machines under $250 so I can choose one',
        conversationId,
        metadata: { team: 'a' },
        country: 'US',
        urls: ['https://shop.example/'],
      },
    });
    assert.equal(first.body.status, 'NEEDS_INPUT', first.text);
    const itemId = first.body.results.hunt.choices[1].itemId;
    const second = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'buy that one', conversationId, itemId, action: 'buy' },
    });
    // The buy continues into pay, which waits for a mandate (this run has none).
    assert.equal(second.body.status, 'awaitingApproval', second.text);

    const { input, steps, waitpoints } = await readRun(first.body.runId);
    assert.deepEqual([input.country, input.metadata, input.urls], ['US', { team: 'a' }, ['https://shop.example/']]);
    for (const column of ['request', 'conversationId', 'taskId', 'channel', 'stream'])
      assert.ok(!(column in input), `${column} has a column of its own`);
    const inOrder = [...steps].sort(
      (x: { segment: number; idx: number }, y: { segment: number; idx: number }) =>
        x.segment - y.segment || x.idx - y.idx,
    );
    assert.deepEqual(
      inOrder.map((s: { domain: string }) => s.domain),
      ['hunt', 'hunt', 'pay'],
      'the step that offered the choice, the same step resumed, then pay',
    );
    assert.deepEqual(waitpoints.map((w: { kind: string }) => w.kind).sort(), ['NEEDS_INPUT', 'awaitingApproval']);
    const choice = waitpoints.find((w: { kind: string }) => w.kind === 'NEEDS_INPUT');
    const payload = readAs(ChoiceWaitpointPayload, choice.payload, 'waitpoints.payload');
    assert.ok(payload.choices.some((c) => c.itemId === itemId));
    const resolution = readAs(WaitpointResolution, choice.resolution, 'waitpoints.resolution');
    assert.deepEqual([resolution.itemId, resolution.action], [itemId, 'buy']);
  });

  it("a template run stores its own fields (findBestFit's budget) in the input", async () => {
    const res = await harness.call('POST', '/v1/workflows/templates/findBestFit/run', {
      token,
      body: { templateId: 'findBestFit', request: 'espresso machine', budget: { maxUsd: 250 } },
    });
    assert.equal(res.status, 200, res.text);
    const { input } = await readRun(res.body.runId);
    assert.deepEqual([input.budget, input.domainRoute], [{ maxUsd: 250 }, ['hunt', 'resolve']]);
  });

  it("a segment's start job is StepJobData: its first step, with the waitpoint it resumes", () => {
    assert.deepEqual(readAs(StepJobData, segmentStart('run_x', 2, ['hunt', 'resolve'], 0, 'wait_1'), 'start'), {
      runId: 'run_x',
      segment: 2,
      index: 0,
      domain: 'hunt',
      first: true,
      resumeWaitpointId: 'wait_1',
    });
    assert.deepEqual(segmentStart('run_y', 1, ['hunt', 'pay'], 1, undefined, 2), {
      runId: 'run_y',
      segment: 1,
      index: 1,
      domain: 'pay',
      first: true,
      drive: 2,
    });
    assert.throws(() => segmentStart('run_z', 0, ['hunt'], 1), /has no step from 1 on/);
  });
});
