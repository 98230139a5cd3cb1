import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { DomainModule } from '../../jobs/domain.js';
import { checkEventPayload, collectEventTypes, eventTypes, isRegisteredEvent } from '../../jobs/events/registry.js';

const module = (name: string, events: DomainModule['events']): DomainModule => ({
  name,
  summary: name,
  scopes: { read: [], write: [] },
  routes: [],
  vocabulary: { lexicon: /^$/, examples: [] },
  events,
});

describe('event type registry', () => {
  it(
    "lists every type the service records: run.*, task.completed, subscription.disabled, the built domains' " +
      '(case.*, proxy.*, pay.settled), signal.matched and schedule.fired',
    () => {
      assert.deepEqual(
        Object.keys(eventTypes())
          .filter((t) => eventTypes()[t]!.origin === 'core')
          .sort(),
        [
          'run.canceled',
          'run.completed',
          'run.failed',
          'run.waiting',
          'subscription.disabled',
          'task.completed',
          'waitpoint.escalated',
        ],
      );
      assert.equal(eventTypes()['pay.settled']?.origin, 'pay');
      for (const t of ['proxy.canceled', 'proxy.expired', 'proxy.outcome'])
        assert.equal(eventTypes()[t]?.origin, 'proxy', t);
      for (const t of ['case.action.updated', 'case.deadline.missed', 'case.updated'])
        assert.equal(eventTypes()[t]?.origin, 'resolve', t);
      for (const t of ['schedule.fired', 'signal.matched']) assert.ok(eventTypes()[t], t);
      for (const spec of Object.values(eventTypes()))
        assert.ok((spec.payload as { $id?: string }).$id && spec.description, spec.type);
    },
  );

  it("adds each domain module's events, naming a payload schema that has no $id after its type", () => {
    const types = collectEventTypes([
      module('pay', {
        'pay.settled': { description: 'A payment settled', payload: Type.Object({ receiptId: Type.String() }) },
      }),
    ]);
    assert.equal(types['pay.settled']!.origin, 'pay');
    assert.equal((types['pay.settled']!.payload as { $id?: string }).$id, 'PaySettledPayload');
    assert.ok(types['run.completed']);
  });

  it('refuses a type declared twice', () => {
    const clash = module('proxy', { 'run.completed': { description: 'again', payload: Type.Object({}) } });
    assert.throws(() => collectEventTypes([clash]), /run\.completed is declared by core and by proxy/);
  });

  it(
    'checkEventPayload: [] for a conforming payload, the failing paths otherwise, an error for an unregistered ' +
      'type',
    () => {
      assert.deepEqual(checkEventPayload('subscription.disabled', { subscriptionId: 'sub_1', reason: 'gone' }), []);
      assert.deepEqual(
        checkEventPayload('run.waiting', { runId: 'run_1', status: 'ready', route: ['hunt'], proofCardId: null }).map(
          (e) => e.path,
        ),
        ['/status'],
      );
      assert.deepEqual(
        checkEventPayload('task.completed', { taskId: 't', domain: 'hunt' }).map((e) => e.path),
        ['/outData'],
      );
      assert.equal(isRegisteredEvent('order.shipped'), false);
      assert.deepEqual(
        checkEventPayload('order.shipped', {}).map((e) => e.keyword),
        ['eventType'],
      );
    },
  );
});
