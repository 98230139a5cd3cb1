import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const grantBody = (extra: Record<string, unknown> = {}) => ({
  environments: ['prod'],
  allowedActions: ['configure', 'validate', 'deploy', 'monitor'],
  budget: 8,
  expiresAt: inAnHour(),
  ...extra,
});
const autonomous = (token: string, body: Record<string, unknown>) =>
  harness.call('POST', '/v1/orchestrator/autonomous', {
    token,
    body: { service: 'api', environment: 'prod', version: '5.0.0', artifacts: green, ...body },
  });

describe('autonomy grants', () => {
  it(
    "an approver grants; another member's run acts under " + "it and draws its budget; the grantor's own run cannot",
    async () => {
      const a = await harness.account();
      const approver = await member(a.accountId, 'approver');
      const created = await harness.call('POST', '/v1/delivery/autonomy/grants', {
        token: approver.token,
        body: grantBody(),
      });
      assert.equal(created.status, 201, created.text);
      const grantId = created.body.grant.grantId;
      assert.equal(created.body.grant.createdBy, approver.memberId);
      const run = await autonomous(a.token, { grantId });
      assert.equal(run.status, 200, run.text);
      assert.equal(run.body.status, 'dryRun', run.text);
      assert.equal(run.body.autonomy.autonomousToCompletion, true);
      assert.equal(
        (await harness.call('GET', `/v1/delivery/autonomy/grants/${grantId}`, { token: a.token })).body.grant.used,
        4,
      );
      const own = await harness.call('POST', '/v1/delivery/autonomy/grants', { token: a.token, body: grantBody() });
      const self = await autonomous(a.token, { grantId: own.body.grant.grantId });
      assert.equal(self.status, 409, self.text);
      assert.equal(self.body.error, 'selfApproval');
      const second = await autonomous(a.token, { grantId });
      assert.equal(second.body.status, 'dryRun', 'a budget of 8 covers two runs of 4 actions');
      const third = await autonomous(a.token, { grantId });
      assert.equal(third.status, 422, third.text);
      assert.equal(third.body.details.reason, 'grantNotUsable');
      await harness.call('POST', `/v1/delivery/autonomy/grants/${grantId}/revoke`, { token: approver.token, body: {} });
      assert.equal(
        (await harness.call('GET', `/v1/delivery/autonomy/grants/${grantId}`, { token: a.token })).body.grant.status,
        'revoked',
      );
    },
  );

  it("a grant in the run's body is refused (400); a developer cannot grant (403)", async () => {
    const a = await harness.account();
    const dev = await member(a.accountId, 'developer');
    const inline = await autonomous(a.token, {
      grantId: 'agr_x',
      autonomy: { enabled: true, allowedActions: ['deploy'] },
    });
    assert.equal(inline.status, 400);
    assert.match(inline.body.message, /POST \/v1\/delivery\/autonomy\/grants/);
    assert.equal(
      (await harness.call('POST', '/v1/delivery/autonomy/grants', { token: dev.token, body: grantBody() })).status,
      403,
    );
  });

  it('400 on a bad grant, 401 without a token, 404 across accounts', async () => {
    const a = await harness.account();
    const b = await harness.account();
    assert.equal(
      (await harness.call('POST', '/v1/delivery/autonomy/grants', { token: a.token, body: grantBody({ budget: 0 }) }))
        .status,
      400,
    );
    assert.equal(
      (
        await harness.call('POST', '/v1/delivery/autonomy/grants', {
          token: a.token,
          body: grantBody({ expiresAt: '2000-01-01T00:00:00Z' }),
        })
      ).status,
      400,
    );
    assert.equal((await harness.call('POST', '/v1/delivery/autonomy/grants', { body: grantBody() })).status, 401);
    const g = await harness.call('POST', '/v1/delivery/autonomy/grants', { token: a.token, body: grantBody() });
    const id = g.body.grant.grantId;
    assert.equal((await harness.call('GET', `/v1/delivery/autonomy/grants/${id}`, { token: b.token })).status, 404);
    assert.equal(
      (await harness.call('POST', `/v1/delivery/autonomy/grants/${id}/revoke`, { token: b.token, body: {} })).status,
      404,
    );
    assert.equal((await autonomous(b.token, { grantId: id })).status, 404);
    assert.equal((await harness.call('GET', '/v1/delivery/autonomy/grants', { token: a.token })).body.grants.length, 1);
  });
});
