import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';
import { PODS } from '../support/pod-fixtures.js';
import { PROJECTS } from '../support/project-fixtures.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const stage = (body: any, name: string) => body.stages.find((s: any) => s.name === name);

describe('delivery runs through the queue: staging, prod gate, approve, reject', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  let approver: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    approver = await member(a.accountId, 'approver');
  });

  it(
    'staging runs environment → cicd → delivery to delivered, a dry run without a CI connector; GET /v1/runs ' +
      'shows the same fields',
    async () => {
      const res = await harness.call('POST', '/v1/delivery/run', {
        token: a.token,
        body: {
          service: 'api',
          environment: 'staging',
          version: '2.3.0',
          strategy: 'canary',
          artifacts: green,
          files: PROJECTS.python,
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'dryRun');
      assert.deepEqual(
        res.body.stages.map((s: any) => [s.name, s.status]),
        [
          ['configure', 'passed'],
          ['validate', 'passed'],
          ['deploy', 'dry run'],
          ['monitor', 'passed'],
          ['repair', 'skipped'],
        ],
      );
      assert.match(stage(res.body, 'deploy').findings[0], /^dry run: no CI connector/);
      assert.match(res.body.handoff.message, /^dry run: /);
      assert.equal(res.body.handoff.mode, 'dry run');
      const run = (await harness.call('GET', `/v1/runs/${res.body.runId}`, { token: a.token })).body.run;
      assert.deepEqual(run.route, ['environment', 'cicd', 'delivery']);
      assert.equal(run.status, 'dryRun');
      assert.deepEqual(run.stages, res.body.stages);
      assert.deepEqual(run.handoff, res.body.handoff);
      assert.ok(run.steps.every((s: any) => s.status === 'completed'));
    },
  );

  it(
    'a failing gate ends the run blocked at validate; files with code bring the security analyzer into the ' + 'route',
    async () => {
      const res = await harness.call('POST', '/v1/delivery/run', {
        token: a.token,
        body: {
          service: 'api',
          environment: 'staging',
          version: '2.3.1',
          artifacts: { ...green, tests: 'failed' },
          files: { ...PROJECTS.node, 'src/app.ts': 'export {}' },
        },
      });
      assert.equal(res.body.status, 'blocked', res.text);
      assert.equal(stage(res.body, 'validate').status, 'failed');
      assert.ok(
        stage(res.body, 'validate').detail.analyzers.includes('security'),
        JSON.stringify(stage(res.body, 'validate')),
      );
      const run = (await harness.call('GET', `/v1/runs/${res.body.runId}`, { token: a.token })).body.run;
      assert.deepEqual(run.route, ['environment', 'security', 'cicd', 'delivery']);
      assert.equal(stage(res.body, 'deploy').status, 'skipped');
      assert.match(res.body.handoff.message, /tests is failed/);
    },
  );

  it('a leaked key in the files: the security analyzer blocks the release at validate', async () => {
    const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    const key = `AKIA${Array.from(randomBytes(16), (b) => alnum[b % alnum.length]).join('')}`;
    const res = await harness.call('POST', '/v1/delivery/run', {
      token: a.token,
      body: {
        service: 'api',
        environment: 'staging',
        version: '2.3.2',
        artifacts: green,
        files: { ...PROJECTS.node, 'src/aws.ts': `export const accessKeyId = '${key}';\n` },
      },
    });
    assert.equal(res.body.status, 'blocked', res.text);
    assert.equal(stage(res.body, 'validate').status, 'failed');
    assert.ok(
      stage(res.body, 'validate').findings.includes('security analysis blocks the release'),
      JSON.stringify(stage(res.body, 'validate')),
    );
    assert.ok(!res.text.includes(key), 'the key itself is never shown');
  });

  it('prod rests at the deploy gate; approve continues to delivered; a second resume is 409', async () => {
    const res = await harness.call('POST', '/v1/delivery/run', {
      token: a.token,
      body: { service: 'api', environment: 'prod', version: '2.3.0', artifacts: green },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'awaitingApproval');
    assert.equal(stage(res.body, 'deploy').status, 'awaitingApproval');
    assert.equal(res.body.handoff.to, 'approver');
    const waiting = (await harness.call('GET', `/v1/runs/${res.body.runId}`, { token: a.token })).body.run;
    assert.equal(waiting.waitpoint.kind, 'awaitingApproval');
    assert.equal(waiting.waitpoint.domain, 'delivery');
    assert.equal(
      (
        await harness.call('POST', `/v1/delivery/runs/${res.body.runId}/resume`, {
          token: b.token,
          body: { approved: true },
        })
      ).status,
      404,
      'another account',
    );
    const approved = await harness.call('POST', `/v1/delivery/runs/${res.body.runId}/resume`, {
      token: approver.token,
      body: { approved: true },
    });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.status, 'dryRun');
    assert.equal(stage(approved.body, 'deploy').status, 'dry run');
    const again = await harness.call('POST', `/v1/delivery/runs/${res.body.runId}/resume`, {
      token: a.token,
      body: { approved: false },
    });
    assert.equal(again.status, 409, again.text);
    const run = (await harness.call('GET', `/v1/runs/${res.body.runId}`, { token: a.token })).body.run;
    assert.equal(run.status, 'dryRun');
    assert.equal(stage(run, 'deploy').status, 'dry run');
  });

  it('prod rejected ends blocked; unhealthy pods after deploy end blocked with proposed repairs', async () => {
    const res = await harness.call('POST', '/v1/delivery/run', {
      token: a.token,
      body: { service: 'api', environment: 'prod', version: '2.4.0', artifacts: green },
    });
    assert.equal(res.body.status, 'awaitingApproval');
    const rejected = await harness.call('POST', `/v1/delivery/runs/${res.body.runId}/resume`, {
      token: a.token,
      body: { approved: false },
    });
    assert.equal(rejected.body.status, 'blocked', rejected.text);
    assert.equal(stage(rejected.body, 'deploy').status, 'blocked');
    const sick = await harness.call('POST', '/v1/delivery/run', {
      token: a.token,
      body: { service: 'cache', environment: 'staging', version: '1.1', artifacts: green, pods: [PODS.oom] },
    });
    assert.equal(sick.body.status, 'blocked', sick.text);
    assert.equal(stage(sick.body, 'monitor').status, 'failed');
    assert.ok(stage(sick.body, 'repair').findings.some((f: string) => /Raise the memory limit/.test(f)));
    assert.equal(sick.body.handoff.to, 'onCall');
  });

  it('400 on a bad body, 401 without a token, 404 for an unknown run or a run that is not a delivery', async () => {
    assert.equal(
      (
        await harness.call('POST', '/v1/delivery/run', {
          token: a.token,
          body: { service: 'api', environment: 'qa', version: '1' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await harness.call('POST', '/v1/delivery/run', {
          body: { service: 'api', environment: 'staging', version: '1' },
        })
      ).status,
      401,
    );
    assert.equal(
      (await harness.call('POST', '/v1/delivery/runs/run_nope/resume', { token: a.token, body: { approved: true } }))
        .status,
      404,
    );
    assert.equal(
      (await harness.call('POST', '/v1/delivery/runs/run_nope/resume', { token: a.token, body: {} })).status,
      400,
    );
    const other = await harness.call('POST', '/v1/orchestrator/run', {
      token: a.token,
      body: { request: 'diagnose', domainRoute: ['kubernetes'], metadata: { pods: [PODS.crashExit127] } },
    });
    assert.equal(other.body.status, 'ready', other.text);
    assert.equal(
      other.body.results.kubernetes.findings[0].kind,
      'CrashLoopBackOff',
      'the kubernetes step ran through the queue',
    );
    assert.equal(
      (
        await harness.call('POST', `/v1/delivery/runs/${other.body.runId}/resume`, {
          token: a.token,
          body: { approved: true },
        })
      ).status,
      404,
    );
  });
});
