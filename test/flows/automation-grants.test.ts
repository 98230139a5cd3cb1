import assert from 'node:assert/strict';
import { addMember, receiptsOf, tokenWith } from '../support/grants.js';
import { harness } from '../support/harness.js';
import { grant, newTask } from '../support/pay.js';
import { pollUntilRest } from '../support/runs.js';

/**
 * Issue 26, item 7, for automations: a schedule or a signal rule records its
 * creator's grant and its runs act within it (capped by the creator's role
 * at each firing), whoever triggers the schedule or posts the signal.
 */
describe("schedules and signal rules act within their creator's grant", function () {
  this.timeout(60_000);
  let owner: { token: string; accountId: string };
  let payTarget: Record<string, unknown>;
  before(async () => {
    owner = await harness.account();
    const m = await grant(owner.token, await newTask(owner.token), { maxSpend: { amount: 900, currency: 'USD' } });
    const metadata = { mandateId: m.mandateId, payment: { vendorId: 'Shiny', amount: 10 } };
    payTarget = { request: { request: 'pay the cleaner', domainRoute: ['pay'], metadata } };
  });
  const schedule = (token: string, target = payTarget) =>
    harness.call('POST', '/v1/schedules', { token, body: { cron: '0 0 1 1 *', target } });
  const scoped = (scopes: string[]) => tokenWith(owner.accountId, scopes);
  const trigger = async (scheduleId: string) => {
    const fired = await harness.call('POST', `/v1/schedules/${scheduleId}/trigger`, { token: owner.token });
    assert.equal(fired.status, 200, fired.text);
    return fired.body.firing;
  };

  it('schedule scopes alone cannot create one (403 naming runs:write); it shows whose grant it uses', async () => {
    const refused = await schedule(await tokenWith(owner.accountId, ['schedules:read', 'schedules:write']));
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.message, /runs:write/);
    assert.equal((await harness.deps.db('schedules').where({ account_id: owner.accountId })).length, 0);
    const made = await schedule(await tokenWith(owner.accountId, ['schedules:write', 'runs:write']));
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.schedule.grantScopes, ['schedules:write', 'runs:write']);
    assert.match(made.body.schedule.createdBy, /^mem_/);
  });

  it("a schedule paying needs pay:write in its creator's grant, whoever triggers it", async () => {
    const narrow = await schedule(await tokenWith(owner.accountId, ['schedules:write', 'runs:write']));
    const firing = await trigger(narrow.body.schedule.scheduleId);
    assert.equal(firing.outcome, 'started', JSON.stringify(firing));
    const failed = await pollUntilRest(owner.token, firing.runId);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /settling a payment needs scope pay:write/);
    assert.equal(await receiptsOf(firing.runId), 0, 'no money moved');
    const wide = await schedule(await tokenWith(owner.accountId, ['schedules:write', 'runs:write', 'pay:write']));
    const paid = await trigger(wide.body.schedule.scheduleId);
    assert.equal((await pollUntilRest(owner.token, paid.runId)).result.results.pay.paid, true);
    assert.equal(await receiptsOf(paid.runId), 1);
  });

  it("a demoted or disabled creator's schedule stops acting: its firings are refused, saying why", async () => {
    const dev = await addMember(owner.accountId, 'developer');
    const made = await schedule(await tokenWith(owner.accountId, ['schedules:write', 'runs:write', 'pay:write'], dev));
    assert.equal(made.status, 201, made.text);
    const id = made.body.schedule.scheduleId;
    await harness.deps.db('members').where({ id: dev }).update({ role: 'viewer' });
    const demoted = await trigger(id);
    assert.deepEqual([demoted.outcome, demoted.runId], ['refused', null]);
    assert.match(demoted.reason, new RegExp(`${dev} \\(role viewer\\) no longer holds runs:write`));
    await harness.deps.db('members').where({ id: dev }).update({ role: 'developer', status: 'disabled' });
    const disabled = await trigger(id);
    assert.equal(disabled.outcome, 'refused');
    assert.match(disabled.reason, /is disabled/);
  });

  it("signal scopes cannot create a rule; its run acts within its creator's grant, not a poster's", async () => {
    const type = `grant.${Date.now()}`;
    const rule = (token: string, signalType: string) =>
      harness.call('POST', '/v1/signals/rules', { token, body: { name: 'pay', signalType, target: payTarget } });
    const signal = (token: string, type: string) =>
      harness.call('POST', '/v1/signals', {
        token,
        body: { type, subject: 's', source: 'test', sourceId: `${type}-${Math.random()}` },
      });
    const signalsOnly = await tokenWith(owner.accountId, ['signals:read', 'signals:write']);
    const refused = await rule(signalsOnly, type);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.message, /runs:write/);
    assert.equal((await rule(await tokenWith(owner.accountId, ['signals:write', 'runs:write']), type)).status, 201);
    const matched = await signal(signalsOnly, type);
    assert.equal(matched.status, 201, matched.text);
    const runId = matched.body.matches[0].runId;
    const failed = await pollUntilRest(owner.token, runId);
    assert.match(failed.error, /settling a payment needs scope pay:write/);
    assert.equal(await receiptsOf(runId), 0);
    const other = `${type}.paid`;
    assert.equal((await rule(await scoped(['signals:write', 'runs:write', 'pay:write']), other)).status, 201);
    const paid = await signal(signalsOnly, other);
    assert.equal((await pollUntilRest(owner.token, paid.body.matches[0].runId)).result.results.pay.paid, true);
  });

  it("a rule's new target makes it act within the updater's grant (403 unless they could start it)", async () => {
    const body = { name: 'r', signalType: 'x.y', target: payTarget };
    const made = await harness.call('POST', '/v1/signals/rules', { token: owner.token, body });
    const path = `/v1/signals/rules/${made.body.rule.ruleId}/update`;
    const signalsOnly = await scoped(['signals:write']);
    const refused = await harness.call('POST', path, { token: signalsOnly, body: { target: payTarget } });
    assert.equal(refused.status, 403, refused.text);
    const renamed = await harness.call('POST', path, { token: signalsOnly, body: { name: 'renamed' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.ok(renamed.body.rule.grantScopes.includes('pay:write'), "a rename keeps the creator's grant");
    const token = await scoped(['signals:write', 'runs:write']);
    const retargeted = await harness.call('POST', path, { token, body: { target: payTarget } });
    assert.deepEqual(retargeted.body.rule.grantScopes, ['signals:write', 'runs:write']);
  });
});
