import assert from 'node:assert/strict';
import { TouchDebounce } from '../../jobs/accounts/authenticate.js';

describe('token last-used debounce (the auth "touched" map)', () => {
  it('writes a token at most once per window', () => {
    const d = new TouchDebounce(60_000, 100);
    assert.equal(d.due('tok_a', 1_000_000), true);
    assert.equal(d.due('tok_a', 1_030_000), false);
    assert.equal(d.due('tok_a', 1_060_001), true);
  });

  it('forgets tokens whose window has passed, so it holds only the tokens used in the last minute', () => {
    const d = new TouchDebounce(60_000, 1_000_000);
    for (let i = 0; i < 50_000; i++) d.due(`tok_${i}`, 1_000_000 + i * 10); // 50,000 tokens over 500 s
    assert.ok(d.size <= 6001, `holds ${d.size}`);
  });

  it('never holds more than its cap, even when every token is fresh', () => {
    const d = new TouchDebounce(60_000, 1000);
    for (let i = 0; i < 5000; i++) d.due(`tok_${i}`, 1_000_000);
    assert.equal(d.size, 1000);
    // The newest are kept, so a token in use right now is still debounced.
    assert.equal(d.due('tok_4999', 1_000_001), false);
    assert.equal(d.due('tok_0', 1_000_001), true);
  });
});
