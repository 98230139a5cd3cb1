import assert from 'node:assert/strict';
import { eventTypes } from '../../jobs/events/registry.js';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';

/** Issue 8 §6: clients cannot forge the service's events, and every delivered event says who wrote it. */
describe('event sources: reserved types and source', () => {
  it(
    "refuses every registered type, the spec's pay.settled and proxy.outcome, and their namespaces (422); " +
      'records nothing',
    async () => {
      const { token, accountId } = await harness.account();
      const forged = [
        ...Object.keys(eventTypes()),
        'pay.settled',
        'proxy.outcome',
        'run.madeUp',
        'task.deleted',
        'subscription.enabled',
      ];
      assert.ok(
        forged.includes('run.completed') &&
          forged.includes('task.completed') &&
          forged.includes('subscription.disabled'),
      );
      for (const type of forged) {
        const res = await harness.call('POST', '/v1/events', {
          token,
          body: { type, payload: { runId: 'run_x', status: 'ready', route: [], proofCardId: null } },
        });
        assert.equal(res.status, 422, `${type}: ${res.text}`);
        assert.equal(res.body.error, 'policyViolation');
        assert.equal(res.body.details.type, type);
      }
      assert.equal((await harness.deps.db('events').where({ account_id: accountId })).length, 0);
      // Names that merely start with the same letters are the client's own.
      for (const type of ['runner.started', 'invoice.paid', 'payments.settled']) {
        assert.equal(
          (await harness.call('POST', '/v1/events', { token, body: { type, payload: {} } })).status,
          201,
          type,
        );
      }
    },
  );

  it(
    'webhook bodies and GET /v1/events say source: client ' + "for a client's event and service for the service's",
    async () => {
      const { token } = await harness.account();
      const secrets: string[] = [];
      const rx = await startReceiver(() => secrets);
      try {
        const sub = await harness.call('POST', '/v1/event-subscriptions', {
          token,
          body: { endpoint: rx.url, events: ['*'] },
        });
        secrets.push(sub.body.secret);
        const client = await harness.call('POST', '/v1/events', {
          token,
          body: { type: 'invoice.paid', payload: { amount: 5 } },
        });
        assert.equal(client.body.event.source, 'client');
        const task = await harness.call('POST', '/v1/tasks', { token, body: { domain: 'hunt', inData: {} } });
        const taskId = task.body.task.taskId;
        await harness.call('POST', `/v1/tasks/${taskId}/update`, { token, body: { status: 'running' } });
        assert.equal(
          (
            await harness.call('POST', `/v1/tasks/${taskId}/update`, {
              token,
              body: { status: 'completed', outData: {} },
            })
          ).status,
          200,
        );

        const got = await until(
          () => rx.received.map((r) => [r.body.type, r.body.source]),
          (pairs) => pairs.length >= 2,
        );
        assert.deepEqual(Object.fromEntries(got), { 'invoice.paid': 'client', 'task.completed': 'service' });
        const listed = await harness.call('GET', '/v1/events', { token });
        assert.deepEqual(Object.fromEntries(listed.body.events.map((e: any) => [e.type, e.source])), {
          'invoice.paid': 'client',
          'task.completed': 'service',
        });
      } finally {
        await rx.stop();
      }
    },
  );
});
