import assert from 'node:assert/strict';
import { RecentMap } from '../../shared/recent-map.js';

describe('RecentMap (bounded process caches)', () => {
  it('never holds more than its max, however many keys pass through', () => {
    const m = new RecentMap<string, number>(100);
    for (let i = 0; i < 10_000; i++) m.set(`k${i}`, i);
    assert.equal(m.size, 100);
    assert.equal(m.get('k9999'), 9999);
    assert.equal(m.get('k0'), undefined);
  });

  it('forgets the least recently used: a read renews a key', () => {
    const m = new RecentMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    assert.equal(m.get('a'), 1); // a is now newer than b
    assert.deepEqual(m.set('c', 3), ['b']);
    assert.deepEqual([...m.keys()], ['a', 'c']);
    assert.equal(m.has('b'), false);
  });

  it('setting a key it holds replaces the value without pushing anything out', () => {
    const m = new RecentMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    assert.deepEqual(m.set('a', 10), []);
    assert.equal(m.size, 2);
    assert.equal(m.get('a'), 10);
  });

  it('resized keeps the most recent entries', () => {
    const m = new RecentMap<string, number>(5);
    for (const k of ['a', 'b', 'c', 'd', 'e']) m.set(k, 0);
    const small = m.resized(2);
    assert.deepEqual([...small.keys()], ['d', 'e']);
    assert.equal(small.max, 2);
  });

  it('refuses a max that is not a positive whole number', () => {
    assert.throws(() => new RecentMap(0), /positive whole max/);
    assert.throws(() => new RecentMap(1.5), /positive whole max/);
  });
});
