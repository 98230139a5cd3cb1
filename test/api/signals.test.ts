import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

const huntTarget = { request: { request: 'find an espresso machine under $160', domainRoute: ['hunt'] } };
const uniq = (p: string) => `${p}.${Math.random().toString(36).slice(2, 10)}`;

describe('signals and signal rules', () => {
  let a: { token: string; accountId: string };
  let b: { token: string; accountId: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    await seedCatalog(a.accountId);
  });

  const rule = (token: string, body: Record<string, unknown>) =>
    harness.call('POST', '/v1/signals/rules', { token, body: { name: 'r', target: huntTarget, ...body } });
  const signal = (token: string, body: Record<string, unknown>) =>
    harness.call('POST', '/v1/signals', {
      token,
      body: { subject: 'sku-1', source: 'monitor', sourceId: uniq('obs'), ...body },
    });

  it("a matching signal starts the rule's run once; a duplicate answers the first and starts nothing", async () => {
    const type = uniq('price.changed');
    const created = await rule(a.token, { signalType: type, condition: { '<': [{ var: 'value.price' }, 200] } });
    assert.equal(created.status, 201, created.text);
    const ruleId = created.body.rule.ruleId;
    const first = await signal(a.token, { type, value: { price: 150 }, sourceId: 'obs-1' });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.duplicate, false);
    assert.equal(first.body.matches.length, 1);
    const match = first.body.matches[0];
    assert.deepEqual([match.ruleId, match.outcome], [ruleId, 'started']);
    assert.match(match.runId, /^run_/);
    const run = await harness.deps.db('runs').where({ id: match.runId }).first();
    assert.equal(run.account_id, a.accountId);
    assert.deepEqual(run.input.metadata.awp, {
      startedBy: `signalRule:${ruleId}`,
      signalId: first.body.signal.signalId,
      ruleId,
      matchId: match.matchId,
      type,
      subject: 'sku-1',
    });

    const again = await signal(a.token, { type, value: { price: 10 }, sourceId: 'obs-1' });
    assert.equal(again.status, 200);
    assert.equal(again.body.duplicate, true);
    assert.equal(again.body.signal.signalId, first.body.signal.signalId);
    assert.deepEqual(again.body.signal.value, { price: 150 }, 'the first signal is answered');
    assert.equal(
      (await harness.deps.db('signal_matches').where({ rule_id: ruleId })).length,
      1,
      'a duplicate matches nothing',
    );
    assert.equal(
      (await harness.deps.db('runs').whereRaw(`input->'metadata'->'awp'->>'ruleId' = ?`, [ruleId])).length,
      1,
    );

    const events = await harness.deps
      .db('events')
      .where({ type: 'signal.matched', subject: first.body.signal.signalId });
    assert.equal(events.length, 1);
    assert.equal(events[0].payload.runId, match.runId);

    const fetched = await harness.call('GET', `/v1/signals/${first.body.signal.signalId}`, { token: a.token });
    assert.equal(fetched.status, 200);
    assert.deepEqual(
      fetched.body.matches.map((m: any) => [m.ruleId, m.runId]),
      [[ruleId, match.runId]],
    );
  });

  it('a signal the condition does not hold for, or of another type, matches nothing', async () => {
    const type = uniq('price.changed');
    await rule(a.token, {
      signalType: type,
      condition: { and: [{ '==': [{ var: 'subject' }, 'sku-9'] }, { '>': [{ var: 'value.drop' }, 0.1] }] },
    });
    assert.deepEqual((await signal(a.token, { type, subject: 'sku-9', value: { drop: 0.05 } })).body.matches, []);
    assert.deepEqual((await signal(a.token, { type, subject: 'sku-8', value: { drop: 0.5 } })).body.matches, []);
    assert.deepEqual(
      (await signal(a.token, { type: uniq('other'), subject: 'sku-9', value: { drop: 0.5 } })).body.matches,
      [],
    );
    assert.equal((await signal(a.token, { type, subject: 'sku-9', value: { drop: 0.5 } })).body.matches.length, 1);
  });

  it('refuses a condition with a disallowed operator, naming it; and other unusable conditions', async () => {
    const type = uniq('t');
    const method = await rule(a.token, {
      signalType: type,
      condition: { '==': [{ method: [{ var: 'subject' }, 'toUpperCase'] }, 'X'] },
    });
    assert.equal(method.status, 400);
    assert.match(method.body.message, /method/);
    assert.deepEqual(method.body.details.operators, ['method']);
    const several = await rule(a.token, {
      signalType: type,
      condition: { or: [{ in: ['a', { var: 'subject' }] }, { '+': [1, 2] }, { cat: ['a', 'b'] }] },
    });
    assert.equal(several.status, 400);
    assert.deepEqual(several.body.details.operators, ['in', '+', 'cat']);
    const proto = await rule(a.token, { signalType: type, condition: { '==': [{ var: 'value.constructor' }, 1] } });
    assert.equal(proto.status, 400);
    assert.match(proto.body.message, /prototype/);
    const outside = await rule(a.token, { signalType: type, condition: { '==': [{ var: 'secrets.key' }, 1] } });
    assert.equal(outside.status, 400);
    const update = await rule(a.token, { signalType: type, condition: { '==': [{ var: 'subject' }, 'x'] } });
    const bad = await harness.call('POST', `/v1/signals/rules/${update.body.rule.ruleId}/update`, {
      token: a.token,
      body: { condition: { reduce: [[1], 0, 0] } },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details.operators, ['reduce']);
  });

  it('a dedup window per subject and a rate limit hold matches back, recorded as such', async () => {
    const type = uniq('deploy');
    const dedup = await rule(a.token, { signalType: type, dedupWindowSeconds: 3600 });
    const first = await signal(a.token, { type, subject: 'svc-a' });
    assert.equal(first.body.matches[0].outcome, 'started');
    const second = await signal(a.token, { type, subject: 'svc-a' });
    assert.equal(second.body.matches[0].outcome, 'deduplicated');
    assert.equal(second.body.matches[0].runId, null);
    assert.equal(
      (await signal(a.token, { type, subject: 'svc-b' })).body.matches[0].outcome,
      'started',
      'another subject has its own window',
    );
    await harness.call('POST', `/v1/signals/rules/${dedup.body.rule.ruleId}/update`, {
      token: a.token,
      body: { status: 'paused' },
    });

    const limited = uniq('deploy');
    await rule(a.token, { signalType: limited, maxRunsPerHour: 2 });
    const outcomes = [];
    for (const subject of ['x1', 'x2', 'x3'])
      outcomes.push((await signal(a.token, { type: limited, subject })).body.matches[0].outcome);
    assert.deepEqual(outcomes, ['started', 'started', 'rateLimited']);
  });

  it('a quota refusal is recorded on the match, not lost', async () => {
    const starter = await harness.account({ activated: false });
    await harness.deps
      .db('accounts')
      .where({ id: starter.accountId })
      .update({ unverified_used: harness.config.UNVERIFIED_REQUEST_LIMIT });
    const type = uniq('t');
    assert.equal((await rule(starter.token, { signalType: type })).status, 201);
    const res = await signal(starter.token, { type });
    assert.equal(res.body.matches[0].outcome, 'refused');
    assert.match(res.body.matches[0].reason, /limited to/);
    const event = await harness.deps
      .db('events')
      .where({ type: 'signal.matched', subject: res.body.signal.signalId })
      .first();
    assert.equal(event.payload.outcome, 'refused');
  });

  it('lists signals by type, subject and observed time; rules by type; fetch, update, delete', async () => {
    const type = uniq('list');
    await signal(a.token, { type, subject: 's1', observedAt: '2026-01-01T00:00:00Z' });
    await signal(a.token, { type, subject: 's2', observedAt: '2026-02-01T00:00:00Z' });
    const all = await harness.call('GET', `/v1/signals?type=${type}`, { token: a.token });
    assert.deepEqual(
      all.body.signals.map((s: any) => s.subject),
      ['s2', 's1'],
    );
    const bySubject = await harness.call('GET', `/v1/signals?type=${type}&subject=s1`, { token: a.token });
    assert.deepEqual(
      bySubject.body.signals.map((s: any) => s.subject),
      ['s1'],
    );
    const range = await harness.call(
      'GET',
      `/v1/signals?type=${type}&observedFrom=2026-01-15T00:00:00Z&observedTo=2026-03-01T00:00:00Z`,
      { token: a.token },
    );
    assert.deepEqual(
      range.body.signals.map((s: any) => s.subject),
      ['s2'],
    );
    const paged = await harness.call('GET', `/v1/signals?type=${type}&limit=1`, { token: a.token });
    const next = await harness.call('GET', `/v1/signals?type=${type}&limit=1&cursor=${paged.body.nextCursor}`, {
      token: a.token,
    });
    assert.deepEqual(
      [...paged.body.signals, ...next.body.signals].map((s: any) => s.subject),
      ['s2', 's1'],
    );

    const created = (await rule(a.token, { signalType: type, condition: { '!': [{ var: 'value.quiet' }] } })).body.rule;
    assert.deepEqual(
      (await harness.call('GET', `/v1/signals/rules?signalType=${type}`, { token: a.token })).body.rules.map(
        (r: any) => r.ruleId,
      ),
      [created.ruleId],
    );
    assert.equal(
      (await harness.call('GET', `/v1/signals/rules/${created.ruleId}`, { token: a.token })).body.rule.name,
      'r',
    );
    const updated = await harness.call('POST', `/v1/signals/rules/${created.ruleId}/update`, {
      token: a.token,
      body: { name: 'renamed', maxRunsPerHour: 5 },
    });
    assert.deepEqual([updated.body.rule.name, updated.body.rule.maxRunsPerHour], ['renamed', 5]);
    assert.equal((await harness.call('DELETE', `/v1/signals/rules/${created.ruleId}`, { token: a.token })).status, 200);
    assert.equal((await harness.call('GET', `/v1/signals/rules/${created.ruleId}`, { token: a.token })).status, 404);
  });

  it(
    '400 for bad bodies and targets, 401 without a ' + "token, 404 unknown, 404 for another account's " + 'records',
    async () => {
      const type = uniq('t');
      assert.equal(
        (await harness.call('POST', '/v1/signals', { token: a.token, body: { type, subject: 's' } })).status,
        400,
      );
      assert.equal((await signal(a.token, { type, observedAt: 'yesterday' })).status, 400);
      assert.equal((await harness.call('GET', '/v1/signals?observedFrom=soon', { token: a.token })).status, 400);
      assert.equal((await rule(a.token, { signalType: type, target: {} })).status, 400);
      assert.equal((await rule(a.token, { signalType: type, target: { templateId: 'noSuchTemplate' } })).status, 400);
      assert.equal(
        (await rule(a.token, { signalType: type, target: { ...huntTarget, templateId: 'findBestFit' } })).status,
        400,
      );
      assert.equal((await rule(a.token, { signalType: type, dedupWindowSeconds: -1 })).status, 400);
      assert.equal(
        (await harness.call('POST', '/v1/signals/rules/srl_x/update', { token: a.token, body: {} })).status,
        400,
      );

      for (const [method, path] of [
        ['POST', '/v1/signals'],
        ['GET', '/v1/signals'],
        ['GET', '/v1/signals/sig_x'],
        ['POST', '/v1/signals/rules'],
        ['GET', '/v1/signals/rules'],
        ['GET', '/v1/signals/rules/srl_x'],
        ['DELETE', '/v1/signals/rules/srl_x'],
      ] as const) {
        assert.equal(
          (await harness.call(method, path, method === 'POST' ? { body: {} } : {})).status,
          401,
          `${method} ${path}`,
        );
      }
      assert.equal((await harness.call('GET', '/v1/signals/sig_missing', { token: a.token })).status, 404);
      assert.equal((await harness.call('GET', '/v1/signals/rules/srl_missing', { token: a.token })).status, 404);
      assert.equal((await harness.call('DELETE', '/v1/signals/rules/srl_missing', { token: a.token })).status, 404);

      const mine = (await signal(a.token, { type })).body.signal.signalId;
      const myRule = (await rule(a.token, { signalType: type })).body.rule.ruleId;
      assert.equal((await harness.call('GET', `/v1/signals/${mine}`, { token: b.token })).status, 404);
      assert.equal((await harness.call('GET', `/v1/signals/rules/${myRule}`, { token: b.token })).status, 404);
      assert.equal(
        (await harness.call('POST', `/v1/signals/rules/${myRule}/update`, { token: b.token, body: { name: 'x' } }))
          .status,
        404,
      );
      assert.equal((await harness.call('DELETE', `/v1/signals/rules/${myRule}`, { token: b.token })).status, 404);
      assert.ok(!(await harness.call('GET', `/v1/signals?type=${type}`, { token: b.token })).body.signals.length);
      assert.equal((await signal(b.token, { type })).body.matches.length, 0, "another account's rules never match");
    },
  );

  it('a token without the signals scopes is refused (403)', async () => {
    const narrow = await harness.account({ scopes: ['runs:read'] });
    assert.equal((await harness.call('GET', '/v1/signals', { token: narrow.token })).status, 403);
    assert.equal((await signal(narrow.token, { type: 'x' })).status, 403);
  });
});
