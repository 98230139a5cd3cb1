import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { ndjson, pollUntilRest, seedCatalog } from '../support/runs.js';

const TYPES = new Set(['trace', 'conversation', 'domainStream', 'handoff', 'progress', 'final']);

describe('orchestrator runs end to end', () => {
  let token: string;
  let accountId: string;
  before(async () => {
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });

  it('a multi-domain run (hunt → resolve) reaches ready with a proof card', async () => {
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find the cheapest espresso machine under $250', domainRoute: ['hunt', 'resolve'] },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'ready');
    assert.match(res.body.runId, /^run_/);
    assert.deepEqual(res.body.route, ['hunt', 'resolve']);
    assert.equal(res.body.results.hunt.candidates.filter((c: any) => c.eligible).length, 2);
    assert.equal(res.body.results.resolve.audited.candidates, 3);
    assert.equal(res.body.proofCard.kind, 'proofCard');
    assert.match(res.body.proofCard.cite, /^awp:proofCard:pc_\w+#v1$/);
    assert.match(res.body.proofCard.citeRef, /^awp:decisionLog:dec_\w+#v1$/);
    assert.ok(res.body.proofCard.confidence > 0 && res.body.proofCard.confidence <= 1);
    assert.ok(res.body.agentConversation.every((l: string) => /^\[(hunt|resolve)\] /.test(l)));
    const card = await harness.call('GET', `/v1/audit/proofCards/${res.body.proofCard.cardId}`, { token });
    assert.deepEqual(card.body.proofCard, res.body.proofCard);
  });

  it('routes natural language without domainRoute', async () => {
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find an espresso machine under $160' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.route, ['hunt']);
    assert.equal(res.body.results.hunt.candidates[0].title, 'Espresso machine Compact');
  });

  it('each step works on its own clause of a multi-domain request', async () => {
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find an espresso machine under $250 and check it for hidden fees' },
    });
    assert.deepEqual(res.body.route, ['hunt', 'resolve']);
    assert.equal(res.body.results.hunt.query, 'espresso machine');
    assert.equal(res.body.results.hunt.sourceTelemetry.catalog.matchMode, 'all');
    assert.deepEqual(res.body.results.hunt.budget, { amount: '250.00', currency: 'USD' });
  });

  it('stream: true yields well-formed NDJSON with increasing ids, ending in final', async () => {
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find the cheapest espresso machine', domainRoute: ['hunt', 'resolve'], stream: true },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /application\/x-ndjson/);
    const events = ndjson(res.text);
    for (const e of events) assert.ok(TYPES.has(e.type), `type ${e.type}`);
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
    );
    const last = events[events.length - 1];
    assert.equal(last.type, 'final');
    assert.equal(last.result.status, 'ready');
    assert.ok(events.some((e) => e.type === 'handoff' && e.phase === 'complete' && e.name === 'resolve'));
    assert.ok(events.some((e) => e.type === 'conversation' && e.line.startsWith('[hunt]')));
  });

  it('Prefer: respond-async answers 202 with links, then polling shows the result', async () => {
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find the cheapest espresso machine', domainRoute: ['hunt'] },
      headers: { prefer: 'respond-async' },
    });
    assert.equal(res.status, 202);
    assert.equal(res.headers.get('preference-applied'), 'respond-async');
    assert.equal(res.body.links.self, `/v1/runs/${res.body.runId}`);
    const run = await pollUntilRest(token, res.body.runId);
    assert.equal(run.status, 'ready');
    assert.equal(run.steps.length, 1);
    assert.equal(run.steps[0].status, 'completed');
    assert.equal(typeof run.steps[0].durationMs, 'number');
    assert.equal(run.result.proofCard.cardId, run.proofCardId);
  });

  it('NEEDS_INPUT: a choice, then resume with itemId + action reaches ready; a second resume is 409', async () => {
    const conversationId = `conv-${Date.now()}`;
    // The buy continues into pay, which settles under the task's mandate.
    const task = await harness.call('POST', '/v1/tasks', { token, body: { domain: 'hunt', inData: {} } });
    const taskId = task.body.task.taskId;
    await harness.call('POST', '/v1/pay/mandates', {
      token,
      body: { taskId, constraints: { maxSpend: { amount: 500, currency: 'USD' } } },
    });
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'shortlist espresso machines under $250 so I can choose one', conversationId, taskId },
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.status, 'NEEDS_INPUT', first.text);
    assert.equal(first.body.results.hunt.inputKind, 'choice');
    const choices = first.body.results.hunt.choices;
    assert.equal(choices.length, 2);
    for (const c of choices)
      assert.deepEqual(
        Object.keys(c)
          .filter((k) => ['title', 'price', 'currency'].includes(k))
          .sort(),
        ['currency', 'price', 'title'],
      );
    assert.ok(first.body.proofCard, 'NEEDS_INPUT carries a proof card');

    const unknown = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'that one', conversationId, itemId: 'lst_nope', action: 'buy' },
    });
    assert.equal(unknown.status, 400);

    const chosen = choices[1];
    const second = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'buy that one', conversationId, itemId: chosen.itemId, action: 'buy' },
    });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.runId, first.body.runId);
    assert.equal(second.body.status, 'ready');
    assert.equal(second.body.results.hunt.selected.itemId, chosen.itemId);
    assert.equal(second.body.results.pay.paid, true);

    const again = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'buy it', conversationId, itemId: chosen.itemId, action: 'buy' },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'conflict');
    const viaRunApi = await harness.call('POST', `/v1/runs/${first.body.runId}/resume`, {
      token,
      body: { itemId: chosen.itemId },
    });
    assert.equal(viaRunApi.status, 409);
  });

  it('canceling a run that waits for a choice closes its waitpoint and rests it canceled', async () => {
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'shortlist espresso machines under $250 so I can choose one' },
    });
    assert.equal(first.body.status, 'NEEDS_INPUT');
    const runId = first.body.runId;
    assert.equal((await harness.call('POST', `/v1/runs/${runId}/cancel`, { token })).status, 200);
    const run = (await harness.call('GET', `/v1/runs/${runId}`, { token })).body.run;
    assert.deepEqual([run.status, run.waitpoint, run.result.status], ['canceled', null, 'canceled']);
    const choice = first.body.results.hunt.choices[0].itemId;
    assert.equal(
      (await harness.call('POST', `/v1/runs/${runId}/resume`, { token, body: { itemId: choice } })).status,
      409,
    );
    const finals = await harness.deps.db('run_events').where({ run_id: runId, type: 'final' });
    assert.equal(finals.length, 2, 'one final for the rest at the choice, one for the cancel');
  });

  it('a run through bridge that asks for no action ends with its reason (connectors have routes)', async () => {
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find a cheap espresso machine, then register a webhook connector for our CRM' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.route, ['hunt', 'bridge']);
    const run = await pollUntilRest(token, res.body.runId);
    const bridge = run.result.results.bridge;
    assert.deepEqual([run.status, bridge.performed, bridge.reason], ['ready', false, 'notUnderstood']);
    assert.match(bridge.message, /\/v1\/bridge\/connectors/);
  });

  it('a run that belongs to a task completes the task and writes task.completed in the outbox', async () => {
    const task = await harness.call('POST', '/v1/tasks', {
      token,
      body: { domain: 'hunt', inData: { want: 'espresso' } },
    });
    assert.equal(task.status, 201);
    const taskId = task.body.task.taskId;
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find the cheapest espresso machine', domainRoute: ['hunt'], taskId },
    });
    assert.equal(res.body.status, 'ready');
    const after = await harness.call('GET', `/v1/tasks/${taskId}`, { token });
    assert.equal(after.body.task.status, 'completed');
    assert.deepEqual(
      after.body.task.audit.map((a: any) => a.to),
      ['open', 'running', 'completed'],
    );
    const events = await harness.deps
      .db('events')
      .where({ account_id: accountId, type: 'task.completed', subject: taskId });
    assert.equal(events.length, 1);
  });
});
