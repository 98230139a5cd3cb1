import assert from 'node:assert/strict';
import { nextFireTimes, planTick, scheduleProblem } from '../../jobs/schedules/logic.js';
import { checkCondition, conditionHolds, disallowedOperators } from '../../jobs/signals/logic.js';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('schedule arithmetic', () => {
  it(
    'daylight saving: a local time that does not exist fires once an hour later; one that happens twice fires ' +
      'once',
    () => {
      // Europe/Berlin springs forward on 2026-03-29 (02:00 → 03:00) and falls back on 2026-10-25 (03:00 → 02:00).
      assert.deepEqual(iso(nextFireTimes('30 2 * * *', 'Europe/Berlin', new Date('2026-03-27T12:00:00Z'), 3)), [
        '2026-03-28T01:30:00.000Z', // 02:30 CET
        '2026-03-29T01:30:00.000Z', // 02:30 does not exist: 03:30 CEST
        '2026-03-30T00:30:00.000Z', // 02:30 CEST
      ]);
      assert.deepEqual(iso(nextFireTimes('30 2 * * *', 'Europe/Berlin', new Date('2026-10-24T12:00:00Z'), 3)), [
        '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST); the second (CET, 01:30Z) does not fire
        '2026-10-26T01:30:00.000Z',
        '2026-10-27T01:30:00.000Z',
      ]);
    },
  );

  it('seconds are optional; the zone decides the wall clock', () => {
    assert.deepEqual(iso(nextFireTimes('*/20 * * * * *', 'UTC', new Date('2026-01-01T00:00:05Z'), 2)), [
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:40.000Z',
    ]);
    assert.deepEqual(iso(nextFireTimes('0 9 * * 1', 'America/New_York', new Date('2026-01-01T00:00:00Z'), 1)), [
      '2026-01-05T14:00:00.000Z',
    ]);
  });

  it('names what is wrong with a cron or a zone', () => {
    assert.equal(scheduleProblem('*/5 * * * *', 'Europe/Berlin'), null);
    assert.match(scheduleProblem('61 * * * *', 'UTC')!, /invalid/);
    assert.match(scheduleProblem('* * *', 'UTC')!, /five fields/);
    assert.match(scheduleProblem('* * * * * * *', 'UTC')!, /five fields/);
    assert.match(scheduleProblem('@daily', 'UTC')!, /@-macros/);
    assert.match(scheduleProblem('* * * * *', 'Mars/Olympus')!, /timezone/);
  });

  it('plans a claim: on time runs; late follows catchUp (once runs the latest, none records it missed)', () => {
    const s = { cron: '*/10 * * * *', timezone: 'UTC', nextFireAt: new Date('2026-01-01T00:00:00Z') };
    const onTime = planTick({ ...s, catchUp: 'none' }, new Date('2026-01-01T00:00:30Z'), 60_000);
    assert.deepEqual(
      [
        onTime.action,
        onTime.trigger,
        onTime.missed,
        onTime.scheduledFor.toISOString(),
        onTime.nextFireAt.toISOString(),
      ],
      ['run', 'tick', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:10:00.000Z'],
    );
    const later = new Date('2026-01-01T02:05:00Z');
    const once = planTick({ ...s, catchUp: 'once' }, later, 60_000);
    assert.deepEqual(
      [once.action, once.trigger, once.missed, once.scheduledFor.toISOString(), once.nextFireAt.toISOString()],
      ['run', 'catchUp', 12, '2026-01-01T02:00:00.000Z', '2026-01-01T02:10:00.000Z'],
    );
    const none = planTick({ ...s, catchUp: 'none' }, later, 60_000);
    assert.deepEqual(
      [none.action, none.missed, none.nextFireAt.toISOString()],
      ['missed', 13, '2026-01-01T02:10:00.000Z'],
    );
  });
});

describe('signal rule conditions', () => {
  it('evaluates comparison, boolean and var over subject and value', () => {
    const c = {
      and: [
        { '==': [{ var: 'subject' }, 'sku-1'] },
        { or: [{ '<': [{ var: 'value.price' }, 100] }, { '!!': [{ var: ['value.flag', false] }] }] },
      ],
    };
    assert.deepEqual(checkCondition(c), []);
    assert.equal(conditionHolds(c, { subject: 'sku-1', value: { price: 50 } }), true);
    assert.equal(conditionHolds(c, { subject: 'sku-1', value: { price: 150 } }), false);
    assert.equal(conditionHolds(c, { subject: 'sku-1', value: { price: 150, flag: true } }), true);
    assert.equal(conditionHolds(c, { subject: 'sku-2', value: { price: 50 } }), false);
    assert.equal(conditionHolds(null, { subject: 'x', value: null }), true);
  });

  it('refuses anything else, naming operators', () => {
    assert.deepEqual(disallowedOperators(checkCondition({ '==': [{ method: ['x', 'toString'] }, 1] })), ['method']);
    assert.deepEqual(disallowedOperators(checkCondition({ if: [true, 1, 2] })), ['if']);
    assert.ok(checkCondition({ '==': [{ var: { cat: ['val', 'ue'] } }, 1] }).length > 0, 'a computed var path');
    assert.ok(checkCondition({ '==': [{ var: 'value.__proto__' }, 1] }).length > 0);
    assert.ok(checkCondition({ a: 1, b: 2 }).length > 0, 'two keys');
    let deep: unknown = true;
    for (let i = 0; i < 20; i++) deep = { '!': [deep] };
    assert.ok(checkCondition(deep).some((p) => /deeper/.test(p.message)));
  });
});
