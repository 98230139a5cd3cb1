import assert from 'node:assert/strict';
import { ReceiptReply, SettleReply } from '../../jobs/pay/mandate-schemas.js';
import { insertListings } from '../../jobs/hunt/catalog-repository.js';
import { check } from '../../shared/validation.js';
import { harness } from '../support/harness.js';
import { grant, newTask } from '../support/pay.js';

describe('pay settlement and receipts', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  let taskId: string;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    taskId = await newTask(a.token);
    await insertListings(harness.deps.db, a.accountId, [
      {
        title: 'Kettle Steel',
        price: 40,
        fees: 0,
        currency: 'USD',
        vendor: 'PotShop',
        url: 'https://pots.example/kettle',
        description: 'Stainless kettle, 1.7 l. Plus shipping.',
      },
      {
        title: 'Toaster Chrome',
        price: 30,
        fees: 5,
        currency: 'USD',
        vendor: 'PotShop',
        url: 'https://pots.example/toaster',
        description: 'Two slots; shipping fee priced in.',
        tags: ['in stock'],
      },
    ]);
  });
  const settle = (body: Record<string, unknown>, token = a.token, headers: Record<string, string> = {}) =>
    harness.call('POST', '/v1/pay/settle', { token, body, headers });

  it(
    'settles (201): the receipt (plain amount), the remaining budget, double-entry ledger rows; the receipt ' +
      'and the mandate show it',
    async () => {
      const m = await grant(a.token, taskId, { maxSpend: { amount: 100, currency: 'USD' } });
      const res = await settle({
        mandateId: m.mandateId,
        taskId,
        vendorId: 'PotShop',
        amount: 12.34,
        povRef: 'invoice-77',
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(check(SettleReply, res.body), []);
      const r = res.body.receipt;
      assert.match(r.receiptId, /^rcpt_/);
      assert.deepEqual(
        [r.status, r.amount, r.currency, r.vendorId, r.povRef, r.cite, r.mandateId, r.taskId, r.runId, r.provider],
        [
          'settled',
          12.34,
          'USD',
          'PotShop',
          'invoice-77',
          `awp:receipt:${r.receiptId}#v1`,
          m.mandateId,
          taskId,
          null,
          'internalLedger',
        ],
      );
      assert.deepEqual(res.body.remaining, { amount: 87.66, currency: 'USD' });

      const fetched = await harness.call('GET', `/v1/pay/receipts/${r.receiptId}`, { token: a.token });
      assert.equal(fetched.status, 200);
      assert.deepEqual(check(ReceiptReply, fetched.body), []);
      assert.deepEqual(fetched.body.receipt.amount, { amount: 12.34, currency: 'USD' });
      assert.equal(fetched.body.receipt.settledAt, r.settledAt);
      const mandate = (await harness.call('GET', `/v1/pay/mandates/${m.mandateId}`, { token: a.token })).body;
      assert.deepEqual(
        [mandate.remaining.amount, mandate.spent.amount, mandate.settlementCount, mandate.settlements[0].receiptId],
        [87.66, 12.34, 1, r.receiptId],
      );

      const entries = await harness.deps
        .db('pay_ledger_entries')
        .where({ receipt_id: r.receiptId })
        .orderBy('direction');
      assert.deepEqual(
        entries.map((e: any) => [e.ledger_account, e.direction, e.amount_minor, e.currency]),
        [
          [`mandate:${m.mandateId}`, 'credit', 1234, 'USD'],
          ['vendor:PotShop', 'debit', 1234, 'USD'],
        ],
      );
      const eur = await settle({
        mandateId: (await grant(a.token, taskId, { maxSpend: { amount: 50, currency: 'EUR' } })).mandateId,
        taskId,
        vendorId: 'PotShop',
        amount: 5,
        currency: 'EUR',
      });
      assert.deepEqual(
        [eur.status, eur.body.receipt.currency],
        [201, 'EUR'],
        "a settlement may name the mandate's currency",
      );
    },
  );

  it('refuses with 422 policyViolation and a reason naming the rule; nothing is written', async () => {
    const m = await grant(a.token, taskId, {
      maxSpend: { amount: 50, currency: 'USD' },
      allowedVendors: ['PotShop', 'Kettle & Co'],
    });
    const ask = { mandateId: m.mandateId, taskId, vendorId: 'potshop', amount: 10 };
    const refused = async (body: Record<string, unknown>, reason: string, message: RegExp, token = a.token) => {
      const res = await settle(body, token);
      assert.deepEqual(
        [res.status, res.body.error, res.body.details?.reason],
        [422, 'policyViolation', reason],
        res.text,
      );
      assert.match(res.body.message, message);
      return res;
    };
    await refused({ ...ask, mandateId: 'mnd_nope' }, 'unknownMandate', /Mandate mnd_nope is unknown/);
    await refused(ask, 'unknownMandate', new RegExp(`Mandate ${m.mandateId} is unknown`), b.token);
    await refused(
      { ...ask, vendorId: 'PanPalace' },
      'vendorNotAllowed',
      /Vendor PanPalace is not in mandate .*allowedVendors/,
    );
    await refused({ ...ask, amount: 50.01 }, 'overBudget', /50\.01 USD is over mandate .*remaining 50\.00 USD/);
    await refused({ ...ask, currency: 'EUR' }, 'currencyMismatch', /is in USD; this settlement is in EUR/);
    await refused({ ...ask, taskId: await newTask(a.token) }, 'taskMismatch', /is granted for task/);
    const e = await grant(a.token, taskId);
    await harness.deps
      .db('pay_mandates')
      .where({ id: e.mandateId })
      .update({ expires_at: harness.deps.db.raw("now() - interval '1 second'") });
    await refused({ ...ask, mandateId: e.mandateId }, 'mandateExpired', /has expired/);
    assert.equal((await settle(ask)).status, 201, 'vendors are compared case-insensitively');
    await harness.call('POST', `/v1/pay/mandates/${m.mandateId}/revoke`, { token: a.token, body: {} });
    await refused(ask, 'mandateRevoked', /was revoked/);
    const receipts = await harness.deps.db('pay_receipts').where({ mandate_id: m.mandateId });
    assert.equal(receipts.length, 1, 'only the one allowed settlement wrote a receipt');
  });

  it(
    "checks resolve rules against the task's evidence: an unpriced fee fails hiddenFeeClear, unconfirmed stock " +
      'fails inventoryVerified',
    async () => {
      const buy = async (request: string) => {
        const task = await newTask(a.token);
        const run = await harness.call('POST', '/v1/orchestrator/run', {
          token: a.token,
          body: { request, domainRoute: ['hunt'], taskId: task },
        });
        assert.equal(run.body.status, 'ready', run.text);
        assert.ok(run.body.results.hunt.selected, 'the run chose one candidate');
        return task;
      };
      const rules = { resolveRules: ['hiddenFeeClear', 'inventoryVerified'] };
      const kettleTask = await buy('buy the steel kettle');
      const kettle = await grant(a.token, kettleTask, rules);
      const fee = await settle({ mandateId: kettle.mandateId, taskId: kettleTask, vendorId: 'PotShop', amount: 40 });
      assert.deepEqual(
        [fee.status, fee.body.details.reason, fee.body.details.rule],
        [422, 'resolveRuleUnmet', 'hiddenFeeClear'],
      );
      assert.match(
        fee.body.message,
        /requires hiddenFeeClear: "Kettle Steel" names a fee it does not price \(plus shipping\)/,
      );
      assert.deepEqual(
        fee.body.details.unmet.map((u: any) => u.rule),
        ['hiddenFeeClear', 'inventoryVerified'],
      );
      const stockOnly = await grant(a.token, kettleTask, { resolveRules: ['inventoryVerified'] });
      const stock = await settle({
        mandateId: stockOnly.mandateId,
        taskId: kettleTask,
        vendorId: 'PotShop',
        amount: 40,
      });
      assert.deepEqual([stock.status, stock.body.details.rule], [422, 'inventoryVerified']);
      assert.match(stock.body.message, /availability of "Kettle Steel" was not confirmed/);

      const toasterTask = await buy('buy the chrome toaster');
      const toaster = await grant(a.token, toasterTask, rules);
      const ok = await settle({ mandateId: toaster.mandateId, taskId: toasterTask, vendorId: 'PotShop', amount: 35 });
      assert.equal(ok.status, 201, ok.text);

      const bare = await newTask(a.token);
      const none = await settle({
        mandateId: (await grant(a.token, bare, rules)).mandateId,
        taskId: bare,
        vendorId: 'PotShop',
        amount: 1,
      });
      assert.match(none.body.message, /no chosen candidate in the task's evidence/, 'no evidence fails closed');
    },
  );

  it('Idempotency-Key replays the same receipt; the same key with another body is 409', async () => {
    const m = await grant(a.token, taskId, { maxSpend: { amount: 100, currency: 'USD' } });
    const body = { mandateId: m.mandateId, taskId, vendorId: 'PotShop', amount: 30 };
    const first = await settle(body, a.token, { 'idempotency-key': `settle-${m.mandateId}` });
    const again = await settle(body, a.token, { 'idempotency-key': `settle-${m.mandateId}` });
    assert.deepEqual([first.status, again.status, again.headers.get('idempotent-replayed')], [201, 201, 'true']);
    assert.deepEqual(again.body.receipt, first.body.receipt);
    const other = await settle({ ...body, amount: 31 }, a.token, { 'idempotency-key': `settle-${m.mandateId}` });
    assert.equal(other.status, 409);
    const after = (await harness.call('GET', `/v1/pay/mandates/${m.mandateId}`, { token: a.token })).body;
    assert.deepEqual([after.settlementCount, after.remaining.amount], [1, 70], 'the retry settled nothing');
  });

  it("400 for bad bodies; 401 without a token; 404 for an unknown receipt and another account's", async () => {
    const m = await grant(a.token, taskId);
    const ask = { mandateId: m.mandateId, taskId, vendorId: 'PotShop', amount: 1 };
    for (const body of [
      {},
      { ...ask, amount: 0 },
      { ...ask, amount: -5 },
      { ...ask, amount: 1.234 },
      { ...ask, amount: '3' },
      { ...ask, vendorId: '' },
      { ...ask, currency: 'usd' },
      { ...ask, currency: 'QQQ' },
    ]) {
      const res = await settle(body);
      assert.deepEqual([res.status, res.body.error], [400, 'invalidPayload'], JSON.stringify(body));
    }
    assert.equal((await harness.call('POST', '/v1/pay/settle', { body: ask })).status, 401);
    const receipt = (await settle(ask)).body.receipt;
    assert.equal((await harness.call('GET', `/v1/pay/receipts/${receipt.receiptId}`)).status, 401);
    assert.equal((await harness.call('GET', '/v1/pay/receipts/rcpt_missing', { token: a.token })).status, 404);
    assert.equal((await harness.call('GET', `/v1/pay/receipts/${receipt.receiptId}`, { token: b.token })).status, 404);
  });
});
