import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { member, ownerOf } from '../support/approvers.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const prodRun = (token: string, extra: Record<string, unknown> = {}) =>
  harness.call('POST', '/v1/delivery/run', {
    token,
    body: { service: 'api', environment: 'prod', version: '9.0.0', artifacts: green, ...extra },
  });
const stage = (body: any, name: string) => body.stages.find((s: { name: string }) => s.name === name);

describe('separation of duties', () => {
  it(
    'the submitter cannot approve its own deploy (409 ' +
      'selfApproval), a developer cannot (403), an approver ' +
      'can',
    async () => {
      const a = await harness.account();
      const dev = await member(a.accountId, 'developer');
      const approver = await member(a.accountId, 'approver');
      const run = await prodRun(a.token);
      assert.equal(run.body.status, 'awaitingApproval', run.text);
      const self = await harness.call('POST', `/v1/delivery/runs/${run.body.runId}/resume`, {
        token: a.token,
        body: { approved: true },
      });
      assert.equal(self.status, 409, self.text);
      assert.equal(self.body.error, 'selfApproval');
      const viaRuns = await harness.call('POST', `/v1/runs/${run.body.runId}/resume`, {
        token: a.token,
        body: { approved: true },
      });
      assert.equal(viaRuns.body.error, 'selfApproval', 'the generic resume route decides the same way');
      assert.equal(
        (
          await harness.call('POST', `/v1/delivery/runs/${run.body.runId}/resume`, {
            token: dev.token,
            body: { approved: true },
          })
        ).status,
        403,
      );
      assert.equal(
        (
          await harness.call('POST', `/v1/runs/${run.body.runId}/resume`, {
            token: dev.token,
            body: { approved: true },
          })
        ).status,
        403,
      );
      const ok = await harness.call('POST', `/v1/delivery/runs/${run.body.runId}/resume`, {
        token: approver.token,
        body: { approved: true },
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.status, 'dryRun');
      const log = await harness.call('GET', `/v1/audit/log?resourceType=run&resourceId=${run.body.runId}`, {
        token: a.token,
      });
      const actions = log.body.entries.map((e: any) => `${e.action}:${e.memberId}`);
      assert.ok(actions.includes(`approval.granted:${approver.memberId}`), actions.join());
      assert.ok(actions.includes(`approval.refused:${await ownerOf(a.accountId)}`), actions.join());
      const granted = log.body.entries.find((e: any) => e.action === 'approval.granted');
      assert.equal(granted.details.gate, 'deploy');
      assert.equal(granted.details.step.domain, 'delivery');
      const steps = await harness.deps
        .db('run_steps')
        .where({ run_id: run.body.runId, domain: 'delivery' })
        .orderBy('segment', 'desc')
        .first();
      assert.ok(
        JSON.stringify(steps.evidence).includes(`approved by member ${approver.memberId}`),
        'the proof card cites the approver',
      );
    },
  );

  it('the submitter may refuse its own gate; artifacts.approval opens no gate', async () => {
    const a = await harness.account();
    const claimed = await prodRun(a.token, { artifacts: { ...green, approval: 'approved' } });
    assert.equal(claimed.body.status, 'awaitingApproval', claimed.text);
    const refused = await harness.call('POST', `/v1/delivery/runs/${claimed.body.runId}/resume`, {
      token: a.token,
      body: { approved: false },
    });
    assert.equal(refused.body.status, 'blocked', refused.text);
    assert.equal(stage(refused.body, 'deploy').status, 'blocked');
  });

  it('the policy lets the submitter approve a kind; only an owner or admin sets it', async () => {
    const a = await harness.account();
    const b = await harness.account();
    const approver = await member(a.accountId, 'approver');
    const admin = await member(a.accountId, 'admin');
    const initial = await harness.call('GET', '/v1/policies/approvals', { token: a.token });
    assert.deepEqual(initial.body.selfApproval, []);
    assert.equal(
      (
        await harness.call('POST', '/v1/policies/approvals', {
          token: approver.token,
          body: { selfApproval: ['deploy'] },
        })
      ).status,
      403,
    );
    assert.equal(
      (await harness.call('POST', '/v1/policies/approvals', { token: a.token, body: { selfApproval: ['nope'] } }))
        .status,
      400,
    );
    assert.equal((await harness.call('POST', '/v1/policies/approvals', { body: { selfApproval: [] } })).status, 401);
    const set = await harness.call('POST', '/v1/policies/approvals', {
      token: admin.token,
      body: { selfApproval: ['deploy'] },
    });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.selfApproval, ['deploy']);
    assert.deepEqual(
      (await harness.call('GET', '/v1/policies/approvals', { token: b.token })).body.selfApproval,
      [],
      'another account is untouched',
    );
    const run = await prodRun(a.token);
    const self = await harness.call('POST', `/v1/delivery/runs/${run.body.runId}/resume`, {
      token: a.token,
      body: { approved: true },
    });
    assert.equal(self.status, 200, self.text);
    assert.equal(self.body.status, 'dryRun');
    const audit = await harness.call('GET', '/v1/audit/log?action=policy.*', { token: a.token });
    assert.equal(audit.body.entries[0].memberId, admin.memberId);
  });
});
