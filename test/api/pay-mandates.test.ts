import assert from 'node:assert/strict';
import { MandateDetailReply, MandateReply } from '../../jobs/pay/schemas.js';
import { check } from '../../shared/validation.js';
import { harness } from '../support/harness.js';
import { grant, issuerKeys, newTask, registerIssuer } from '../support/pay.js';

describe('pay mandates', () => {
  let a: { token: string };
  let b: { token: string };
  let taskId: string;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    taskId = await newTask(a.token);
  });
  const create = (body: unknown, token = a.token) => harness.call('POST', '/v1/pay/mandates', { token, body });

  it(
    'grants a mandate (201: mandateId, constraints, remaining, status), fetches it with its settlements, lists ' +
      'it by task and status',
    async () => {
      const res = await create({
        taskId,
        constraints: {
          maxSpend: { amount: 250.5, currency: 'USD' },
          allowedVendors: ['CafeCo'],
          resolveRules: ['hiddenFeeClear'],
          note: 'kept',
        },
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(check(MandateReply, res.body), []);
      const m = res.body;
      assert.match(m.mandateId, /^mnd_/);
      assert.deepEqual(
        [m.status, m.taskId, m.remaining, m.spent, m.issuer, m.expiresAt],
        ['active', taskId, { amount: 250.5, currency: 'USD' }, { amount: 0, currency: 'USD' }, null, null],
      );
      assert.deepEqual(m.constraints, {
        maxSpend: { amount: 250.5, currency: 'USD' },
        allowedVendors: ['CafeCo'],
        resolveRules: ['hiddenFeeClear'],
        note: 'kept',
      });
      assert.deepEqual(m.allowedTransitions, ['revoked', 'expired']);
      const stored = await harness.deps.db('pay_mandates').where({ id: m.mandateId }).first();
      assert.deepEqual(
        [stored.max_minor, stored.spent_minor, stored.currency],
        [25050, 0, 'USD'],
        'money is stored in integer minor units',
      );

      const one = await harness.call('GET', `/v1/pay/mandates/${m.mandateId}`, { token: a.token });
      assert.equal(one.status, 200);
      assert.deepEqual(check(MandateDetailReply, one.body), []);
      assert.deepEqual([one.body.mandateId, one.body.settlementCount, one.body.settlements], [m.mandateId, 0, []]);
      const yen = await create({ taskId, constraints: { maxSpend: { amount: 5000, currency: 'JPY' } } });
      assert.equal(yen.status, 201, yen.text);
      assert.equal(
        (await harness.deps.db('pay_mandates').where({ id: yen.body.mandateId }).first()).max_minor,
        5000,
        'JPY has no minor digits',
      );

      const listed = await harness.call('GET', `/v1/pay/mandates?taskId=${taskId}&status=active`, { token: a.token });
      assert.deepEqual(
        listed.body.mandates.map((x: any) => x.mandateId),
        [yen.body.mandateId, m.mandateId],
      );
      const paged = await harness.call('GET', '/v1/pay/mandates?limit=1', { token: a.token });
      assert.equal(paged.body.mandates.length, 1);
      assert.ok(paged.body.nextCursor);
    },
  );

  it(
    "verifies an issuer's Ed25519 signature over the " + 'canonical JSON: a good one is kept, a bad one is ' + '422',
    async () => {
      const issuer = issuerKeys();
      await registerIssuer(a.token, 'acme-treasury', issuer.publicKey);
      const body = {
        constraints: { resolveRules: ['inventoryVerified'], maxSpend: { currency: 'USD', amount: 80 } },
        taskId,
        issuer: { entityId: 'acme-treasury', publicKey: issuer.publicKey },
      };
      const signed = await create({ ...body, issuer: { ...body.issuer, signature: issuer.sign(body) } });
      assert.equal(signed.status, 201, signed.text);
      assert.deepEqual(signed.body.issuer, { entityId: 'acme-treasury', publicKey: issuer.publicKey, signed: true });
      const row = await harness.deps.db('pay_mandates').where({ id: signed.body.mandateId }).first();
      assert.equal(
        row.signed_payload,
        '{"constraints":{"maxSpend":{"amount":80,"currency":"USD"},"resolveRules":["inventoryVerified"]},' +
          '"issuer":{"entityId":"acme-treasury","publicKey":"' +
          issuer.publicKey +
          '"},"taskId":"' +
          taskId +
          '"}',
      );

      const pem = issuerKeys();
      await registerIssuer(a.token, 'acme-treasury', pem.publicKey);
      const pemBody = { ...body, issuer: { entityId: 'acme-treasury', publicKey: pem.pem } };
      assert.equal(
        (await create({ ...pemBody, issuer: { ...pemBody.issuer, signature: pem.sign(pemBody) } })).status,
        201,
        'a second registered key of the issuer verifies too (the key in the body is never used)',
      );

      // Signed for 80, sent for 8000: the signature no longer covers what is asked.
      const raised = await create({
        ...body,
        constraints: { ...body.constraints, maxSpend: { amount: 8000, currency: 'USD' } },
        issuer: { ...body.issuer, signature: issuer.sign(body) },
      });
      assert.deepEqual(
        [raised.status, raised.body.error, raised.body.details.reason],
        [422, 'policyViolation', 'badIssuerSignature'],
      );
      const otherKey = await create({ ...body, issuer: { ...body.issuer, signature: issuerKeys().sign(body) } });
      assert.equal(otherKey.status, 422);
      const unsigned = await create(body);
      assert.equal(unsigned.body.issuer.signed, false, 'an issuer without a signature is recorded as unsigned');
    },
  );

  it(
    '400 for bad bodies: missing fields, unknown currency, sub-cent amounts, unknown rules, past expiry, ' +
      'unusable keys or signatures',
    async () => {
      const bad: unknown[] = [
        {},
        { taskId },
        { taskId, constraints: {} },
        { taskId, constraints: { maxSpend: { amount: 10 } } },
        { taskId, constraints: { maxSpend: { amount: 10, currency: 'XYZ' } } },
        { taskId, constraints: { maxSpend: { amount: 10.005, currency: 'USD' } } },
        { taskId, constraints: { maxSpend: { amount: 0, currency: 'USD' } } },
        { taskId, constraints: { maxSpend: { amount: 1, currency: 'USD' }, resolveRules: ['vibesChecked'] } },
        { taskId, constraints: { maxSpend: { amount: 1, currency: 'USD' }, allowedVendors: [] } },
        {
          taskId,
          constraints: { maxSpend: { amount: 1, currency: 'USD' } },
          expiresAt: new Date(Date.now() - 1000).toISOString(),
        },
        {
          taskId,
          constraints: { maxSpend: { amount: 1, currency: 'USD' } },
          issuer: { entityId: 'x', signature: 'AAAA' },
        },
        {
          taskId,
          constraints: { maxSpend: { amount: 1, currency: 'USD' } },
          issuer: { entityId: 'x', publicKey: issuerKeys().publicKey, signature: 'c2hvcnQ' },
        },
      ];
      for (const body of bad) {
        const res = await create(body);
        assert.deepEqual([res.status, res.body.error], [400, 'invalidPayload'], JSON.stringify(body));
      }
      assert.equal((await harness.call('GET', '/v1/pay/mandates?status=paused', { token: a.token })).status, 400);
    },
  );

  it(
    'revoke and expiry are statuses: a revoked mandate cannot be revoked again (409); expiry is read from the ' +
      'clock',
    async () => {
      const m = await grant(a.token, taskId);
      const revoked = await harness.call('POST', `/v1/pay/mandates/${m.mandateId}/revoke`, {
        token: a.token,
        body: { reason: 'budget moved' },
      });
      assert.equal(revoked.status, 200, revoked.text);
      assert.deepEqual(
        [revoked.body.status, revoked.body.revokedReason, revoked.body.allowedTransitions],
        ['revoked', 'budget moved', []],
      );
      assert.ok(revoked.body.revokedAt);
      const twice = await harness.call('POST', `/v1/pay/mandates/${m.mandateId}/revoke`, { token: a.token, body: {} });
      assert.deepEqual([twice.status, twice.body.details], [409, { from: 'revoked', to: 'revoked', allowed: [] }]);

      const e = await grant(a.token, taskId, {}, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
      assert.equal(e.status, 'active');
      await harness.deps
        .db('pay_mandates')
        .where({ id: e.mandateId })
        .update({ expires_at: harness.deps.db.raw("now() - interval '1 second'") });
      assert.equal(
        (await harness.call('GET', `/v1/pay/mandates/${e.mandateId}`, { token: a.token })).body.status,
        'expired',
      );
      const expired = await harness.call('GET', '/v1/pay/mandates?status=expired', { token: a.token });
      assert.deepEqual(
        expired.body.mandates.map((x: any) => x.mandateId),
        [e.mandateId],
      );
      assert.ok(
        !(await harness.call('GET', '/v1/pay/mandates?status=active', { token: a.token })).body.mandates.some(
          (x: any) => x.mandateId === e.mandateId,
        ),
      );
      assert.equal(
        (await harness.call('POST', `/v1/pay/mandates/${e.mandateId}/revoke`, { token: a.token, body: {} })).status,
        409,
      );
    },
  );

  it("401 without a token; 404 for an unknown task or mandate and for another account's", async () => {
    const m = await grant(a.token, taskId);
    assert.equal(
      (
        await harness.call('POST', '/v1/pay/mandates', {
          body: { taskId, constraints: { maxSpend: { amount: 1, currency: 'USD' } } },
        })
      ).status,
      401,
    );
    assert.equal((await harness.call('GET', '/v1/pay/mandates')).status, 401);
    assert.equal((await harness.call('GET', `/v1/pay/mandates/${m.mandateId}`)).status, 401);
    assert.equal((await harness.call('POST', `/v1/pay/mandates/${m.mandateId}/revoke`, { body: {} })).status, 401);
    assert.equal(
      (await create({ taskId: 'task_missing', constraints: { maxSpend: { amount: 1, currency: 'USD' } } })).status,
      404,
    );
    assert.equal(
      (await create({ taskId, constraints: { maxSpend: { amount: 1, currency: 'USD' } } }, b.token)).status,
      404,
      "another account's task",
    );
    assert.equal((await harness.call('GET', '/v1/pay/mandates/mnd_missing', { token: a.token })).status, 404);
    assert.equal((await harness.call('GET', `/v1/pay/mandates/${m.mandateId}`, { token: b.token })).status, 404);
    assert.equal(
      (await harness.call('POST', `/v1/pay/mandates/${m.mandateId}/revoke`, { token: b.token, body: {} })).status,
      404,
    );
    assert.deepEqual((await harness.call('GET', '/v1/pay/mandates', { token: b.token })).body.mandates, []);
    assert.equal(
      (await harness.call('GET', `/v1/pay/mandates/${m.mandateId}`, { token: a.token })).body.status,
      'active',
      'another account changed nothing',
    );
  });
});
