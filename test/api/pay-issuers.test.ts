import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';
import { issuerKeys, newTask } from '../support/pay.js';

const jwk = (x: string) => ({ kty: 'OKP', crv: 'Ed25519', x });

/** A mandate body on `taskId` signed by `keys` as `entityId`. */
function signedMandate(taskId: string, entityId: string, keys: ReturnType<typeof issuerKeys>) {
  const body = { taskId, constraints: { maxSpend: { amount: 50, currency: 'USD' } }, issuer: { entityId } };
  return { ...body, issuer: { entityId, signature: keys.sign(body) } };
}

describe('payment issuers', () => {
  it('an owner registers an issuer; its signed mandate settles; an unregistered or wrong key is refused', async () => {
    const a = await harness.account();
    const dev = await member(a.accountId, 'developer');
    const keys = issuerKeys();
    const reg = await harness.call('POST', '/v1/pay/issuers', {
      token: a.token,
      body: { entityId: 'acme-treasury', publicKey: jwk(keys.publicKey) },
    });
    assert.equal(reg.status, 201, reg.text);
    assert.equal(reg.body.issuer.status, 'active');
    const taskId = await newTask(a.token);
    const unknown = await harness.call('POST', '/v1/pay/mandates', {
      token: dev.token,
      body: signedMandate(taskId, 'stranger', issuerKeys()),
    });
    assert.equal(unknown.status, 422, unknown.text);
    assert.equal(unknown.body.details.reason, 'unknownIssuer');
    const forged = issuerKeys();
    const own = signedMandate(taskId, 'acme-treasury', forged);
    const withKey = { ...own, issuer: { ...own.issuer, publicKey: forged.publicKey } };
    const bad = await harness.call('POST', '/v1/pay/mandates', { token: dev.token, body: withKey });
    assert.equal(bad.status, 422, 'a key in the mandate itself is never trusted');
    assert.equal(bad.body.details.reason, 'badIssuerSignature');
    const good = await harness.call('POST', '/v1/pay/mandates', {
      token: dev.token,
      body: signedMandate(taskId, 'acme-treasury', keys),
    });
    assert.equal(good.status, 201, good.text);
    assert.equal(good.body.issuer.signed, true);
    const settled = await harness.call('POST', '/v1/pay/settle', {
      token: a.token,
      body: { mandateId: good.body.mandateId, taskId, vendorId: 'v1', amount: 20 },
    });
    assert.equal(settled.status, 201, settled.text);
    const revoked = await harness.call('POST', `/v1/pay/issuers/${reg.body.issuer.issuerId}/revoke`, {
      token: a.token,
    });
    assert.equal(revoked.body.issuer.status, 'revoked');
    const after = await harness.call('POST', '/v1/pay/mandates', {
      token: dev.token,
      body: signedMandate(taskId, 'acme-treasury', keys),
    });
    assert.equal(after.body.details.reason, 'unknownIssuer');
    assert.equal(
      (await harness.call('POST', `/v1/pay/issuers/${reg.body.issuer.issuerId}/revoke`, { token: a.token })).status,
      409,
    );
  });

  it('an unsigned mandate is an approval: a developer cannot issue it (403)', async () => {
    const a = await harness.account();
    const dev = await member(a.accountId, 'developer');
    const taskId = await newTask(a.token);
    const body = { taskId, constraints: { maxSpend: { amount: 5, currency: 'USD' } }, issuer: { entityId: 'self' } };
    assert.equal((await harness.call('POST', '/v1/pay/mandates', { token: dev.token, body })).status, 403);
    const byOwner = await harness.call('POST', '/v1/pay/mandates', { token: a.token, body });
    assert.equal(byOwner.status, 201, byOwner.text);
    assert.equal(byOwner.body.issuer.signed, false);
  });

  it('owner or admin only, 400 on a bad key, 401 without a token, 404 across accounts', async () => {
    const a = await harness.account();
    const b = await harness.account();
    const approver = await member(a.accountId, 'approver');
    const key = jwk(issuerKeys().publicKey);
    assert.equal(
      (
        await harness.call('POST', '/v1/pay/issuers', {
          token: approver.token,
          body: { entityId: 'x', publicKey: key },
        })
      ).status,
      403,
    );
    assert.equal(
      (
        await harness.call('POST', '/v1/pay/issuers', {
          token: a.token,
          body: { entityId: 'x', publicKey: { kty: 'RSA', x: 'no' } },
        })
      ).status,
      400,
    );
    assert.equal(
      (await harness.call('POST', '/v1/pay/issuers', { body: { entityId: 'x', publicKey: key } })).status,
      401,
    );
    const reg = await harness.call('POST', '/v1/pay/issuers', {
      token: a.token,
      body: { entityId: 'x', publicKey: key },
    });
    const id = reg.body.issuer.issuerId;
    assert.equal((await harness.call('GET', `/v1/pay/issuers/${id}`, { token: a.token })).status, 200);
    assert.equal((await harness.call('GET', `/v1/pay/issuers/${id}`, { token: b.token })).status, 404);
    assert.equal((await harness.call('POST', `/v1/pay/issuers/${id}/revoke`, { token: b.token })).status, 404);
    assert.equal((await harness.call('GET', '/v1/pay/issuers', { token: b.token })).body.issuers.length, 0);
    assert.equal((await harness.call('GET', '/v1/pay/issuers', { token: a.token })).body.issuers.length, 1);
  });
});
