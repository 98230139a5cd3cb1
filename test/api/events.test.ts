import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';

describe('events and subscriptions API', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it('records, lists with filters, fetches and acknowledges events', async () => {
    const first = await harness.call('POST', '/v1/events', {
      token: a.token,
      body: { type: 'invoice.paid', payload: { amount: 10 }, subject: 'inv_1' },
    });
    assert.equal(first.status, 201);
    assert.deepEqual(
      [first.body.event.type, first.body.event.source, first.body.event.acknowledged],
      ['invoice.paid', 'client', false],
    );
    await harness.call('POST', '/v1/events', { token: a.token, body: { type: 'invoice.sent', payload: {} } });
    const paid = await harness.call('GET', '/v1/events?type=invoice.paid', { token: a.token });
    assert.deepEqual(
      paid.body.events.map((e: any) => e.eventId),
      [first.body.event.eventId],
    );
    const ack = await harness.call('POST', `/v1/events/${first.body.event.eventId}/ack`, { token: a.token });
    assert.equal(ack.body.event.acknowledged, true);
    const again = await harness.call('POST', `/v1/events/${first.body.event.eventId}/ack`, { token: a.token });
    assert.equal(again.body.event.ackedAt, ack.body.event.ackedAt, 'the first ack time is kept');
    const unacked = await harness.call('GET', '/v1/events?acknowledged=false', { token: a.token });
    assert.ok(unacked.body.events.every((e: any) => !e.acknowledged));
    const page = await harness.call('GET', '/v1/events?limit=1', { token: a.token });
    assert.equal(page.body.events.length, 1);
    assert.ok(page.body.nextCursor);
    assert.equal(
      (await harness.call('GET', `/v1/events/${first.body.event.eventId}`, { token: a.token })).body.event.subject,
      'inv_1',
    );
  });

  it('events: 400, 401, 404 and another account', async () => {
    assert.equal(
      (await harness.call('POST', '/v1/events', { token: a.token, body: { type: 'NotDotted', payload: {} } })).status,
      400,
    );
    assert.equal((await harness.call('POST', '/v1/events', { token: a.token, body: { type: 'a.b' } })).status, 400);
    assert.equal((await harness.call('POST', '/v1/events', { body: { type: 'a.b', payload: {} } })).status, 401);
    const ev = await harness.call('POST', '/v1/events', { token: a.token, body: { type: 'a.b', payload: {} } });
    assert.equal((await harness.call('GET', `/v1/events/${ev.body.event.eventId}`, { token: b.token })).status, 404);
    assert.equal(
      (await harness.call('POST', `/v1/events/${ev.body.event.eventId}/ack`, { token: b.token })).status,
      404,
    );
    assert.equal((await harness.call('GET', '/v1/events/evt_missing', { token: a.token })).status, 404);
    assert.equal((await harness.call('GET', '/v1/events?since=yesterday', { token: a.token })).status, 400);
  });

  it('subscriptions: one resource under both paths; the secret is shown once; update and pause', async () => {
    const created = await harness.call('POST', '/v1/events/subscriptions', {
      token: a.token,
      body: { endpoint: 'https://hooks.example/awp', events: ['task.completed', 'pay.*'], description: 'main' },
    });
    assert.equal(created.status, 201);
    const id = created.body.subscription.subscriptionId;
    const viaOther = await harness.call('GET', `/v1/event-subscriptions/${id}`, { token: a.token });
    assert.equal(viaOther.body.subscription.endpoint, 'https://hooks.example/awp');
    for (const path of ['/v1/events/subscriptions', '/v1/event-subscriptions']) {
      const list = await harness.call('GET', path, { token: a.token });
      assert.ok(
        list.body.subscriptions.some((s: any) => s.subscriptionId === id),
        path,
      );
      assert.ok(!list.text.includes('whsec_'), 'no secret in listings');
    }
    const given = await harness.call('POST', '/v1/event-subscriptions', {
      token: a.token,
      body: { endpoint: 'https://hooks.example/2', events: ['*'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    });
    assert.equal(given.body.secret, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const paused = await harness.call('POST', `/v1/event-subscriptions/${id}/update`, {
      token: a.token,
      body: { status: 'paused', events: ['task.*'] },
    });
    assert.deepEqual(
      [paused.body.subscription.status, paused.body.subscription.events, paused.body.secret],
      ['paused', ['task.*'], undefined],
    );
  });

  it('subscriptions: 400 (bad endpoint, events, secret), 401, 404 and another account', async () => {
    for (const body of [
      { endpoint: 'not a url', events: ['a.b'] },
      { endpoint: 'https://h.example', events: [] },
      { endpoint: 'ftp://h.example/x', events: ['a.b'] },
      { endpoint: 'https://h.example', events: ['a.b'], secret: 'plain' },
    ]) {
      assert.equal(
        (await harness.call('POST', '/v1/event-subscriptions', { token: a.token, body })).status,
        400,
        JSON.stringify(body),
      );
    }
    assert.equal(
      (
        await harness.call('POST', '/v1/event-subscriptions', {
          body: { endpoint: 'https://h.example', events: ['a.b'] },
        })
      ).status,
      401,
    );
    const sub = await harness.call('POST', '/v1/event-subscriptions', {
      token: a.token,
      body: { endpoint: 'https://h.example/x', events: ['a.b'] },
    });
    const id = sub.body.subscription.subscriptionId;
    assert.equal((await harness.call('GET', `/v1/event-subscriptions/${id}`, { token: b.token })).status, 404);
    assert.equal(
      (
        await harness.call('POST', `/v1/event-subscriptions/${id}/update`, {
          token: b.token,
          body: { status: 'paused' },
        })
      ).status,
      404,
    );
    assert.equal((await harness.call('GET', '/v1/event-subscriptions/sub_missing', { token: a.token })).status, 404);
    assert.equal(
      (
        await harness.call('POST', `/v1/event-subscriptions/${id}/update`, {
          token: a.token,
          body: { status: 'deleted' },
        })
      ).status,
      400,
    );
  });

  it('private, loopback and plain-HTTP endpoints are refused unless private egress is allowed', async () => {
    const strict = await startExtraApp({ AWP_ALLOW_PRIVATE_EGRESS: '0', NODE_ENV: 'production' });
    try {
      for (const endpoint of [
        'https://127.0.0.1/hook',
        'https://localhost/hook',
        'https://10.1.2.3/x',
        'https://[::1]/x',
        'https://169.254.169.254/latest',
        'http://hooks.example/x',
      ]) {
        const res = await harness.call(
          'POST',
          '/v1/event-subscriptions',
          { token: a.token, body: { endpoint, events: ['a.b'] } },
          strict.url,
        );
        assert.equal(res.status, 400, endpoint);
        assert.equal(res.body.error, 'invalidPayload');
      }
      assert.equal(
        (
          await harness.call(
            'POST',
            '/v1/event-subscriptions',
            { token: a.token, body: { endpoint: 'https://hooks.example/x', events: ['a.b'] } },
            strict.url,
          )
        ).status,
        201,
      );
    } finally {
      await strict.stop();
    }
  });
});
