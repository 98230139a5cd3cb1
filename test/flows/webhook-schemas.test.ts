import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { eventTypes, checkEventPayload } from '../../jobs/events/registry.js';
import { harness } from '../support/harness.js';
import { startReceiver, until, type Received } from '../support/receiver.js';
import { seedCatalog } from '../support/runs.js';

/** Validates `value` against a schema of the OpenAPI document, resolving its #/components refs within the document. */
function validatorFor(doc: any) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as { default: typeof addFormats }).default(ajv);
  return (schema: unknown, value: unknown) => {
    const fn = ajv.compile({ ...(schema as object), components: doc.components });
    return fn(value) ? [] : fn.errors!.map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe('webhooks in the OpenAPI document', () => {
  let doc: any;
  before(async () => {
    doc = (await harness.call('GET', '/openapi.json')).body;
  });

  it(
    'every registered event type is a webhook: its delivered body with the payload schema inside, and the ' +
      'Standard Webhooks headers',
    async () => {
      assert.deepEqual(Object.keys(doc.webhooks ?? {}).sort(), Object.keys(eventTypes()).sort());
      for (const [type, spec] of Object.entries(eventTypes())) {
        const op = doc.webhooks[type].post;
        const body = op.requestBody.content['application/json'].schema;
        assert.equal(body.properties.type.const, type);
        const payloadId = (spec.payload as { $id: string }).$id;
        assert.equal(body.properties.data.$ref, `#/components/schemas/${payloadId}`, type);
        const headers = op.parameters.map((p: any) => doc.components.parameters[p.$ref.split('/').pop()]);
        assert.deepEqual(
          headers.map((h: any) => [h.name, h.in, h.required]),
          [
            ['webhook-id', 'header', true],
            ['webhook-timestamp', 'header', true],
            ['webhook-signature', 'header', true],
          ],
        );
        const catalog = await harness.call('GET', `/v1/schemas/${payloadId}`);
        assert.equal(catalog.status, 200, `${payloadId} in /v1/schemas`);
      }
    },
  );

  it(
    'events delivered for a real run, its task and a disabled subscription validate against their webhook ' + 'schemas',
    async () => {
      const { token, accountId } = await harness.account();
      await seedCatalog(accountId);
      const secrets: string[] = [];
      const rx = await startReceiver(() => secrets);
      const goneSecrets: string[] = [];
      const gone = await startReceiver(
        () => goneSecrets,
        () => ({ status: 410 }),
      );
      try {
        const sub = await harness.call('POST', '/v1/event-subscriptions', {
          token,
          body: { endpoint: rx.url, events: ['run.*', 'task.completed', 'subscription.disabled', 'pay.settled'] },
        });
        secrets.push(sub.body.secret);
        const doomed = await harness.call('POST', '/v1/event-subscriptions', {
          token,
          body: { endpoint: gone.url, events: ['x.gone'] },
        });
        goneSecrets.push(doomed.body.secret);

        const task = await harness.call('POST', '/v1/tasks', { token, body: { domain: 'hunt', inData: {} } });
        // The buy continues into pay, which settles under the task's mandate.
        await harness.call('POST', '/v1/pay/mandates', {
          token,
          body: { taskId: task.body.task.taskId, constraints: { maxSpend: { amount: 500, currency: 'USD' } } },
        });
        const conversationId = `conv-hooks-${Date.now()}`;
        const request = 'shortlist espresso machines under $250 so I can choose one';
        const first = await harness.call('POST', '/v1/orchestrator/run', {
          token,
          body: { request, conversationId, taskId: task.body.task.taskId },
        });
        assert.equal(first.body.status, 'NEEDS_INPUT', first.text);
        const answer = await harness.call('POST', '/v1/orchestrator/run', {
          token,
          body: { request: 'buy it', conversationId, itemId: first.body.results.hunt.choices[0].itemId, action: 'buy' },
        });
        assert.equal(answer.body.status, 'ready', answer.text);
        const other = await harness.call('POST', '/v1/orchestrator/run', { token, body: { request } });
        assert.equal((await harness.call('POST', `/v1/runs/${other.body.runId}/cancel`, { token })).status, 200);
        await harness.call('POST', '/v1/events', { token, body: { type: 'x.gone', payload: {} } });

        const expected = [
          'pay.settled',
          'run.canceled',
          'run.completed',
          'run.waiting',
          'subscription.disabled',
          'task.completed',
        ];
        await until(
          () => new Set(rx.received.map((r) => r.body.type)),
          (types) => expected.every((t) => types.has(t)),
        );
        const check = validatorFor(doc);
        for (const r of rx.received as Received[]) {
          const hook = doc.webhooks[r.body.type]?.post;
          assert.ok(hook, `${r.body.type} is documented`);
          const schema = hook.requestBody.content['application/json'].schema;
          assert.deepEqual(check(schema, r.body), [], `${r.body.type}: ${JSON.stringify(r.body)}`);
          assert.deepEqual(
            Object.keys(r.body).sort(),
            Object.keys(schema.properties).sort(),
            'the schema names exactly the fields sent',
          );
          assert.deepEqual(checkEventPayload(r.body.type, r.body.data), []);
          for (const p of hook.parameters) {
            const header = doc.components.parameters[p.$ref.split('/').pop()];
            const value = r.headers[header.name];
            assert.ok(
              typeof value === 'string' && (!header.schema.pattern || new RegExp(header.schema.pattern).test(value)),
              `${header.name}: ${value}`,
            );
          }
        }
        const waiting = rx.received.find((r) => r.body.type === 'run.waiting')!;
        assert.deepEqual(
          [waiting.body.data.runId, waiting.body.data.status, waiting.body.subject],
          [first.body.runId, 'NEEDS_INPUT', first.body.runId],
        );
        const waitingSchema = doc.webhooks['run.waiting'].post.requestBody.content['application/json'].schema;
        assert.deepEqual(
          check(waitingSchema, { ...waiting.body, data: { ...waiting.body.data, status: 'ready' } }),
          ['/data/status must be equal to one of the allowed values'],
          'the payload schema is applied, through its $ref',
        );
      } finally {
        await rx.stop();
        await gone.stop();
      }
    },
  );
});
