import assert from 'node:assert/strict';
import { CONNECTOR_RULES, POLICY, PREFLIGHT_RULES } from '../../jobs/policy/table.js';
import { crmConnector } from '../support/bridge.js';
import { harness } from '../support/harness.js';

describe('security policy', () => {
  let a: { token: string };
  let b: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    const reg = await harness.call('POST', '/v1/bridge/connectors', {
      token: a.token,
      body: crmConnector('pol-crm', { caps: ['crm.read', 'sms.send'], scopes: undefined }),
    });
    assert.equal(reg.status, 201, reg.text);
  });
  const evaluate = (body: unknown, token = a.token) =>
    harness.call('POST', '/v1/security/policy/evaluate', { token, body });

  it('GET /v1/security/policy is public and publishes the table the evaluator and preflight enforce', async () => {
    const res = await harness.call('GET', '/v1/security/policy');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.domains), ['bridge', 'proxy', 'pay']);
    for (const [domain, policy] of Object.entries(POLICY)) {
      assert.deepEqual(
        res.body.domains[domain].rules,
        policy.rules.map((r) => ({
          id: r.id,
          effect: r.effect,
          caps: r.caps,
          reason: r.reason,
          requires: r.requires ?? [],
        })),
      );
      assert.equal(res.body.domains[domain].default, 'deny');
    }
    assert.ok(res.body.domains.bridge.deniedCapabilities.includes('payments.*'));
    assert.ok(res.body.domains.proxy.allowedCapabilities.includes('voice.call'));
    assert.deepEqual(res.body.domains.pay.rules[0].requires, ['mandate']);
    assert.deepEqual(res.body.mandateRequirements.constraints, ['maxSpend', 'allowedVendors', 'resolveRules']);
    assert.deepEqual(res.body.preflightRules, PREFLIGHT_RULES);
    assert.deepEqual(res.body.connectorRules, CONNECTOR_RULES);
  });

  it('evaluates an action: allowed or not, with the rule that decided and why', async () => {
    const allowed = await evaluate({ domain: 'bridge', action: 'sms.send' });
    assert.equal(allowed.status, 200);
    assert.deepEqual(allowed.body, {
      ok: true,
      domain: 'bridge',
      action: 'sms.send',
      connectorId: null,
      allowed: true,
      rule: { id: 'bridge.allow.contact', effect: 'allow' },
      reason: 'contacting people through a provider connector',
      requires: [],
    });
    const money = await evaluate({ domain: 'bridge', action: 'payments.settle' });
    assert.deepEqual([money.body.allowed, money.body.rule.id], [false, 'bridge.deny.money']);
    const unknown = await evaluate({ domain: 'proxy', action: 'rockets.launch' });
    assert.deepEqual([unknown.body.allowed, unknown.body.rule], [false, { id: 'proxy.default', effect: 'deny' }]);
    const pay = await evaluate({ domain: 'pay', action: 'payments.settle' });
    assert.deepEqual([pay.body.allowed, pay.body.requires], [true, ['mandate']]);
  });

  it('with a connector: it must hold the capability and not be disabled', async () => {
    const ok = await evaluate({ domain: 'bridge', action: 'crm.read', connectorId: 'pol-crm' });
    assert.deepEqual([ok.body.allowed, ok.body.rule.id, ok.body.connectorId], [true, 'bridge.allow.read', 'pol-crm']);
    const lacking = await evaluate({ domain: 'bridge', action: 'tickets.create', connectorId: 'pol-crm' });
    assert.deepEqual([lacking.body.allowed, lacking.body.rule.id], [false, 'connector.capability']);
    assert.match(lacking.body.reason, /pol-crm does not have tickets.create/);
    const deniedFirst = await evaluate({ domain: 'bridge', action: 'payments.settle', connectorId: 'pol-crm' });
    assert.equal(
      deniedFirst.body.rule.id,
      'bridge.deny.money',
      'the domain rule decides before the connector is looked at',
    );
    await harness.call('POST', '/v1/bridge/connectors/pol-crm/update', {
      token: a.token,
      body: { status: 'disabled' },
    });
    const disabled = await evaluate({ domain: 'bridge', action: 'crm.read', connectorId: 'pol-crm' });
    assert.deepEqual([disabled.body.allowed, disabled.body.rule.id], [false, 'connector.status']);
    await harness.call('POST', '/v1/bridge/connectors/pol-crm/update', { token: a.token, body: { status: 'active' } });
  });

  it("400 for a bad body, 401 without a token, 404 for an unknown connector and another account's", async () => {
    assert.equal((await evaluate({ domain: 'hunt', action: 'crm.read' })).status, 400);
    assert.equal((await evaluate({ domain: 'bridge' })).status, 400);
    assert.equal((await evaluate({ domain: 'bridge', action: 'send a text' })).status, 400);
    assert.equal(
      (await harness.call('POST', '/v1/security/policy/evaluate', { body: { domain: 'bridge', action: 'crm.read' } }))
        .status,
      401,
    );
    assert.equal((await evaluate({ domain: 'bridge', action: 'crm.read', connectorId: 'nope' })).status, 404);
    assert.equal(
      (await evaluate({ domain: 'bridge', action: 'crm.read', connectorId: 'pol-crm' }, b.token)).status,
      404,
    );
    assert.equal((await harness.call('GET', '/v1/security/policy/nope')).status, 404);
  });
});
