import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';
import { member } from '../support/approvers.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };

/**
 * A live deploy goes out only through the account's CI connector (bridge,
 * capability ci.trigger), as one bridge action per run whose id is the
 * Idempotency-Key the CI receives; an autonomy grant's dry run sends nothing.
 */
describe('delivery runs deploy through a CI connector', function () {
  this.timeout(30_000);
  const secret = newWebhookSecret();
  const credential = `ci-${randomBytes(16).toString('hex')}`;
  let ci: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  let accountId: string;
  before(async () => {
    process.env.AWP_SECRET_TEST_CI_TOKEN = credential;
    ci = await startReceiver(() => [secret]);
    ({ token, accountId } = await harness.account());
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/credentials', {
          token: token,
          body: { name: 'ci-token', kind: 'bearer', value: credential },
        })
      ).status,
      201,
    );
    const made = await harness.call('POST', '/v1/bridge/connectors', {
      token,
      body: {
        connectorId: 'ci-main',
        kind: 'custom',
        caps: ['ci.trigger'],
        endpoint: ci.url,
        signingSecret: secret,
        credential: { type: 'bearer', tokenRef: 'cred:ci-token' },
      },
    });
    assert.equal(made.status, 201, made.text);
  });
  after(async () => {
    delete process.env.AWP_SECRET_TEST_CI_TOKEN;
    await ci.stop();
  });

  it(
    'a staging delivery is dispatched once, signed, with the credential and an idempotency key derived from ' +
      'the run',
    async () => {
      const before = ci.received.length;
      const res = await harness.call('POST', '/v1/delivery/run', {
        token,
        body: { service: 'api', environment: 'staging', version: '3.0.0', strategy: 'rolling', artifacts: green },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'delivered');
      const deploy = res.body.stages.find((s: any) => s.name === 'deploy');
      assert.equal(deploy.status, 'deployed', JSON.stringify(deploy));
      const actionId = /bridge action (bac_\w+)/.exec(deploy.findings[0])![1]!;
      assert.equal(actionId, `bac_${res.body.runId.replace(/^run_/, '')}`);
      const got = await until(
        () => ci.received.slice(before),
        (r) => r.length >= 1,
      );
      assert.equal(got.length, 1, 'one call');
      assert.equal(got[0]!.headers['idempotency-key'], actionId);
      assert.equal(got[0]!.headers.authorization, `Bearer ${credential}`);
      assert.deepEqual(
        [got[0]!.body.data.capability, got[0]!.body.data.input],
        [
          'ci.trigger',
          { runId: res.body.runId, service: 'api', version: '3.0.0', strategy: 'rolling', environment: 'staging' },
        ],
      );
      const action = await harness.call('GET', `/v1/bridge/actions/${actionId}`, { token });
      assert.equal(action.status, 200, action.text);
      assert.ok(!res.text.includes(credential) && !action.text.includes(credential));
    },
  );

  it('an autonomy grant that asks for a dry run sends nothing, even with the connector', async () => {
    const before = ci.received.length;
    // An approver of the account makes the grant; the owner's run uses it by id.
    const approver = await member(accountId, 'approver');
    const grant = await harness.call('POST', '/v1/delivery/autonomy/grants', {
      token: approver.token,
      body: {
        environments: ['staging'],
        allowedActions: ['deploy', 'monitor', 'rollback', 'configure', 'validate'],
        maxActions: 10,
        dryRun: true,
        budget: 10,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    assert.equal(grant.status, 201, grant.text);
    const res = await harness.call('POST', '/v1/orchestrator/autonomous', {
      token,
      body: {
        mode: 'delivery',
        service: 'api',
        environment: 'staging',
        version: '3.0.1',
        artifacts: green,
        grantId: grant.body.grant.grantId,
      },
    });
    assert.equal(res.status, 200, res.text);
    const deploy = res.body.result.stages.find((s: any) => s.name === 'deploy');
    assert.equal(deploy?.status, 'dry run', JSON.stringify(res.body.result.stages));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(ci.received.length, before, 'nothing reached the CI');
  });
});
