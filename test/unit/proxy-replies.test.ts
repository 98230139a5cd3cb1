import assert from 'node:assert/strict';
import { parseReply } from '../../jobs/proxy/logic.js';

describe('parseReply: a reply to a mission read into an outcome', () => {
  // A Monday: "Thursday" is three days on.
  const now = new Date('2026-11-23T10:00:00Z');

  it('reads a yes, its time and its price', () => {
    const r = parseReply('Yes, Thursday at 3pm works, 120 EUR', now);
    assert.deepEqual(r, {
      answer: 'yes',
      availableAt: '2026-11-26T15:00:00.000Z',
      when: 'Thursday at 3pm',
      price: { amount: 120, currency: 'EUR' },
      ambiguous: false,
    });
    assert.deepEqual(parseReply('sure, $85.50 tomorrow', now).price, { amount: 85.5, currency: 'USD' });
    assert.deepEqual(parseReply('ok for 40 euros', now).price, { amount: 40, currency: 'EUR' });
  });

  it('reads a no, including "not available" (which holds "available") and keypad 2', () => {
    assert.equal(parseReply('Sorry, not available this week', now).answer, 'no');
    assert.equal(parseReply("No, we can't", now).answer, 'no');
    assert.equal(parseReply('2', now).answer, 'no');
    assert.equal(parseReply('1', now).answer, 'yes');
  });

  it('is ambiguous with neither or both', () => {
    assert.deepEqual([parseReply('Maybe, I have to ask my boss', now).ambiguous], [true]);
    assert.equal(parseReply('yes... no, actually', now).answer, null);
    assert.equal(parseReply('', now).ambiguous, true);
  });
});
