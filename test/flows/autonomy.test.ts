import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AutonomousAnswer } from '../../shared/schemas/delivery-ops.js';
import { check } from '../../shared/validation.js';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';
import { PROJECTS } from '../support/project-fixtures.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const release = { service: 'api', environment: 'prod', version: '3.0.0', artifacts: green };
const all = ['configure', 'validate', 'deploy', 'monitor'];
const autonomous = (token: string | undefined, body: unknown) =>
  harness.call('POST', '/v1/orchestrator/autonomous', { token, body });

describe('bounded autonomy: POST /v1/orchestrator/autonomous', () => {
  let a: { token: string; accountId: string };
  let approver: { token: string };
  before(async () => {
    a = await harness.account();
    approver = await member(a.accountId, 'approver');
  });
  /**
   * A grant an approver makes (the runs are submitted by the owner: another member); `autonomy` in the old inline
   * shape.
   */
  const grantOf = async ({ enabled: _enabled, ...fields }: Record<string, unknown>) => {
    const res = await harness.call('POST', '/v1/delivery/autonomy/grants', {
      token: approver.token,
      body: {
        environments: ['prod', 'development'],
        budget: 1000,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        ...fields,
      },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.grant.grantId as string;
  };

  it('fails closed to awaitingApproval for each reason, listing what needs granting', async () => {
    const cases: Array<[string, Record<string, unknown>, string[], RegExp]> = [
      [
        'not granted',
        { enabled: true, allowedActions: ['configure', 'validate'] },
        ['deploy', 'monitor'],
        /deploy is not in allowedActions/,
      ],
      [
        'reserved for a person',
        { enabled: true, allowedActions: all, requireApproval: ['deploy'] },
        ['deploy'],
        /reserves deploy for a person/,
      ],
      [
        'budget',
        { enabled: true, allowedActions: all, maxActions: 2 },
        ['deploy', 'monitor'],
        /budget of 2 action\(s\) is used up/,
      ],
    ];
    for (const [label, autonomy, needsGrant, reason] of cases) {
      const res = await autonomous(a.token, { ...release, grantId: await grantOf(autonomy) });
      assert.equal(res.status, 200, `${label}: ${res.text}`);
      assert.equal(res.body.status, 'awaitingApproval', label);
      assert.equal(res.body.result.mode, 'delivery', `${label}: inferred from service and version`);
      assert.deepEqual(res.body.autonomy.needsGrant, needsGrant, label);
      assert.ok(
        res.body.autonomy.reasons.some((r: string) => reason.test(r)),
        `${label}: ${res.body.autonomy.reasons}`,
      );
      assert.equal(res.body.autonomy.autonomousToCompletion, false);
    }
    const budget = (
      await autonomous(a.token, {
        ...release,
        grantId: await grantOf({ enabled: true, allowedActions: all, maxActions: 2 }),
      })
    ).body.autonomy;
    assert.deepEqual(
      budget.actions.map((x: any) => x.decision),
      ['autoApproved', 'autoApproved', 'needsGrant', 'needsGrant'],
    );
    assert.equal(budget.budgetUsed, 2);
  });

  it('granted within budget: every action autoApproved, delivered as a dry run, to completion', async () => {
    const res = await autonomous(a.token, {
      ...release,
      grantId: await grantOf({ enabled: true, allowedActions: all, maxActions: 4 }),
    });
    assert.equal(res.body.status, 'dryRun', res.text);
    assert.deepEqual(
      res.body.autonomy.actions.map((x: any) => [x.action, x.decision, x.status]),
      [
        ['configure', 'autoApproved', 'skipped'],
        ['validate', 'autoApproved', 'passed'],
        ['deploy', 'autoApproved', 'dry run'],
        ['monitor', 'autoApproved', 'passed'],
      ],
    );
    assert.equal(res.body.autonomy.budgetUsed, 4);
    assert.equal(res.body.autonomy.autonomousToCompletion, true);
    assert.match(res.body.result.handoff.message, /^dry run/);
  });

  it("answers the spec's shape: ok, status, autonomy (completion, budget, actions), result", async () => {
    const res = await autonomous(a.token, {
      ...release,
      grantId: await grantOf({ enabled: true, allowedActions: all, maxActions: 4 }),
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['autonomy', 'ok', 'result', 'status']);
    assert.deepEqual([res.body.ok, res.body.status], [true, 'dryRun']);
    const { autonomousToCompletion, budgetUsed, actions } = res.body.autonomy;
    assert.deepEqual([autonomousToCompletion, budgetUsed, actions.length], [true, 4, 4]);
    for (const x of actions)
      assert.deepEqual([x.decision, typeof x.action, typeof x.status], ['autoApproved', 'string', 'string']);
    assert.equal(res.body.result.runId.startsWith('run_'), true, res.text);
    assert.deepEqual(check(AutonomousAnswer, res.body), [], 'the answer matches its schema in /openapi.json');
  });

  it('the MCP tool orchestrator.autonomous answers the same shape', async () => {
    const client = new Client({ name: 'awp-test', version: '1.0.0' });
    const headers = { Authorization: `Bearer ${a.token}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`), { requestInit: { headers } }),
    );
    try {
      const grantId = await grantOf({ enabled: true, allowedActions: all, maxActions: 4 });
      const result = await client.callTool({ name: 'orchestrator.autonomous', arguments: { ...release, grantId } });
      assert.ok(!result.isError, JSON.stringify(result));
      const out = result.structuredContent as any;
      assert.deepEqual(Object.keys(out).sort(), ['autonomy', 'ok', 'result', 'status']);
      assert.deepEqual([out.status, out.autonomy.autonomousToCompletion], ['dryRun', true]);
    } finally {
      await client.close();
    }
  });

  it('a failing gate still blocks a granted run (autonomy never overrides a gate)', async () => {
    const res = await autonomous(a.token, {
      ...release,
      artifacts: { ...green, security: 'failed' },
      grantId: await grantOf({ enabled: true, allowedActions: all }),
    });
    assert.equal(res.body.status, 'blocked', res.text);
    assert.equal(res.body.autonomy.autonomousToCompletion, false);
  });

  it(
    'environment mode: commands need allowCommands, secrets need a person; granted setup is a dry run to ' + 'dryRun',
    async () => {
      const actions = ['installRuntime', 'startServices', 'installDependencies'];
      const noCommands = await autonomous(a.token, {
        files: PROJECTS.go,
        grantId: await grantOf({ enabled: true, allowedActions: actions }),
      });
      assert.equal(noCommands.body.result.mode, 'environment', 'inferred from files');
      assert.equal(noCommands.body.status, 'awaitingApproval', noCommands.text);
      assert.deepEqual(
        noCommands.body.autonomy.needsGrant,
        ['installRuntime', 'installDependencies'],
        'starting services has no command here (no compose file); the others do',
      );
      assert.ok(noCommands.body.autonomy.reasons.every((r: string) => /allowCommands is not set/.test(r)));
      const secrets = await autonomous(a.token, {
        mode: 'environment',
        files: PROJECTS.ruby,
        grantId: await grantOf({ enabled: true, allowCommands: true, allowedActions: [...actions, 'provideSecrets'] }),
      });
      assert.equal(secrets.body.status, 'awaitingApproval');
      assert.deepEqual(secrets.body.autonomy.needsGrant, ['provideSecrets']);
      assert.match(secrets.body.autonomy.reasons[0], /SECRET_KEY_BASE must come from a person/);
      const granted = await autonomous(a.token, {
        files: PROJECTS.go,
        grantId: await grantOf({ enabled: true, allowCommands: true, allowedActions: actions, workdir: '/src/svc' }),
      });
      assert.equal(granted.body.status, 'dryRun', granted.text);
      assert.ok(
        granted.body.autonomy.actions.every((x: any) => x.decision === 'autoApproved' && x.status === 'dry run'),
      );
      assert.equal(granted.body.autonomy.autonomousToCompletion, true);
      assert.match(granted.body.result.handoff.message, /no command was run/);
      const resumed = await harness.call('POST', `/v1/delivery/runs/${noCommands.body.result.runId}/resume`, {
        token: approver.token,
        body: { approved: true },
      });
      assert.equal(resumed.body.status, 'dryRun', 'a person approves what autonomy did not cover');
      assert.equal(resumed.body.autonomy.autonomousToCompletion, false);
    },
  );

  it('400 when the mode cannot be inferred, the grant is missing or inline, 401 without a token', async () => {
    const grantId = await grantOf({ allowedActions: all });
    assert.equal((await autonomous(a.token, { grantId })).status, 400);
    assert.equal((await autonomous(a.token, { ...release })).status, 400);
    assert.equal((await autonomous(a.token, { ...release, grantId, autonomy: { enabled: true } })).status, 400);
    assert.equal((await autonomous(a.token, { mode: 'delivery', service: 'api', grantId })).status, 400);
    assert.equal((await autonomous(undefined, { ...release, grantId })).status, 401);
  });
});
