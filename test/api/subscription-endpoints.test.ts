import assert from 'node:assert/strict';
import { refusedTargets } from '../support/egress-targets.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';

describe('subscription endpoints: special-purpose targets refused at registration', () => {
  let strict: Awaited<ReturnType<typeof startExtraApp>>;
  let token = '';
  before(async () => {
    strict = await startExtraApp({ AWP_ALLOW_PRIVATE_EGRESS: '0' });
    token = (await harness.account()).token;
  });
  after(() => strict.stop());

  it('creating a subscription to any special-purpose address or local name is 400 invalidPayload', async () => {
    for (const [form, endpoint] of refusedTargets(8443)) {
      const res = await harness.call(
        'POST',
        '/v1/event-subscriptions',
        { token, body: { endpoint, events: ['a.b'] } },
        strict.url,
      );
      assert.deepEqual([res.status, res.body.error], [400, 'invalidPayload'], `${form}: ${res.text}`);
    }
  });

  it('moving an existing subscription onto one is refused too, and the endpoint stays as it was', async () => {
    const sub = await harness.call(
      'POST',
      '/v1/event-subscriptions',
      { token, body: { endpoint: 'https://hooks.example.com./x', events: ['a.b'] } },
      strict.url,
    );
    assert.equal(sub.status, 201, sub.text);
    const id = sub.body.subscription.subscriptionId;
    for (const [form, endpoint] of refusedTargets(8443)) {
      const res = await harness.call(
        'POST',
        `/v1/event-subscriptions/${id}/update`,
        { token, body: { endpoint } },
        strict.url,
      );
      assert.deepEqual([res.status, res.body.error], [400, 'invalidPayload'], `${form}: ${res.text}`);
    }
    const after = await harness.call('GET', `/v1/event-subscriptions/${id}`, { token }, strict.url);
    assert.equal(after.body.subscription.endpoint, 'https://hooks.example.com./x');
  });
});
