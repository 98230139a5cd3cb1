import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const plan = (token: string | undefined, body: unknown) => harness.call('POST', '/v1/cicd/plan', { token, body });

describe('cicd: POST /v1/cicd/plan', () => {
  let a: { token: string };
  before(async () => {
    a = await harness.account();
  });

  it('each strategy gets its own steps and rollback', async () => {
    const base = {
      service: 'api',
      environment: 'staging',
      version: '2.3.0',
      previousVersion: '2.2.1',
      artifacts: green,
    };
    const canary = (await plan(a.token, { ...base, strategy: 'canary' })).body;
    assert.equal(canary.verdict, 'ready', JSON.stringify(canary.reasons));
    assert.deepEqual(
      canary.steps.filter((s: any) => s.weight).map((s: any) => [s.weight, s.pauseMinutes]),
      [
        [10, 2],
        [50, 2],
        [100, 0],
      ],
    );
    assert.match(canary.rollback.steps[0], /weight to 0/);
    const bg = (await plan(a.token, { ...base, strategy: 'blue-green' })).body;
    assert.deepEqual(
      bg.steps.map((s: any) => s.action),
      ['preflight', 'deployGreen', 'smokeTest', 'switchTraffic', 'drainBlue', 'retireBlue'],
    );
    assert.equal(bg.steps.find((s: any) => s.action === 'drainBlue').drainSeconds, 60);
    const rolling = (await plan(a.token, { ...base })).body;
    assert.equal(rolling.strategy, 'rolling', 'the default');
    assert.deepEqual([rolling.steps[1].maxSurge, rolling.steps[1].maxUnavailable], ['25%', '25%']);
    assert.equal(rolling.rollback.toVersion, '2.2.1');
    const recreate = (await plan(a.token, { ...base, strategy: 'recreate' })).body;
    assert.equal(recreate.steps[1].action, 'announceDowntime');
    assert.ok(recreate.steps[1].expectedDowntime);
    assert.match(recreate.rollback.steps[1], /second outage/);
  });

  it('prod needs approval, moves slower, and is ready once approved', async () => {
    const prod = (
      await plan(a.token, {
        service: 'api',
        environment: 'prod',
        version: '2.3.0',
        strategy: 'canary',
        artifacts: green,
      })
    ).body;
    assert.equal(prod.verdict, 'needsApproval');
    assert.deepEqual(prod.reasons, ['production needs an explicit approval']);
    assert.deepEqual(
      prod.steps.filter((s: any) => s.weight).map((s: any) => s.weight),
      [5, 25, 50, 100],
    );
    const rolling = (
      await plan(a.token, { service: 'api', environment: 'production', version: '2.3.0', artifacts: green })
    ).body;
    assert.equal(rolling.steps[1].maxUnavailable, '0');
    const approved = (
      await plan(a.token, {
        service: 'api',
        environment: 'prod',
        version: '2.3.0',
        artifacts: { ...green, approval: 'approved' },
      })
    ).body;
    assert.equal(approved.verdict, 'ready');
  });

  it('each failing gate blocks, and names why; a missing gate is not a passed gate', async () => {
    const failing: Array<[string, string, RegExp]> = [
      ['build', 'failed', /build is failed/],
      ['tests', 'failed', /tests is failed/],
      ['tests', 'pending', /tests has not finished/],
      ['security', 'failed', /security is failed/],
      ['health', 'unhealthy', /health is unhealthy/],
      ['approval', 'rejected', /rejected/],
      ['build', 'healthy', /not a status the build gate passes with/],
    ];
    for (const [gate, status, why] of failing) {
      const res = await plan(a.token, {
        service: 'api',
        environment: 'prod',
        version: '1',
        artifacts: { ...green, approval: 'approved', [gate]: status },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.verdict, 'blocked', `${gate}=${status}`);
      const g = res.body.gates.find((x: any) => x.gate === gate);
      assert.equal(g.ok, false);
      assert.match(g.why, why);
    }
    const bare = (await plan(a.token, { service: 'api', environment: 'staging', version: '1' })).body;
    assert.equal(bare.verdict, 'blocked');
    assert.deepEqual(
      bare.gates.filter((g: any) => !g.ok).map((g: any) => g.gate),
      ['build', 'tests', 'security', 'health'],
    );
    assert.equal(bare.gates.find((g: any) => g.gate === 'approval').why, 'no approval is required outside production');
  });

  it('400 on a missing field or an unknown strategy or gate status, 401 without a token', async () => {
    assert.equal((await plan(a.token, { service: 'api', environment: 'prod' })).status, 400);
    assert.equal(
      (await plan(a.token, { service: 'api', environment: 'prod', version: '1', strategy: 'yolo' })).status,
      400,
    );
    assert.equal(
      (await plan(a.token, { service: 'api', environment: 'prod', version: '1', artifacts: { build: 'green' } }))
        .status,
      400,
    );
    assert.equal((await plan(undefined, { service: 'api', environment: 'prod', version: '1' })).status, 401);
  });
});
