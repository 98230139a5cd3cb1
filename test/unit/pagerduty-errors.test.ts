import assert from 'node:assert/strict';
import type { ProviderCallContext } from '../../jobs/bridge/providers/adapter.js';
import { pagerDutyAdapter } from '../../jobs/bridge/providers/pagerduty.js';
import { startPagerDutyFake, type PagerDutyFake } from '../support/pagerduty-fake.js';

const KEY = 'R0UT1NGKEYunit000000000000000000';

/**
 * PagerDuty Events v2's answers → the adapter's: 202 taken, 400 a permanent refusal with PagerDuty's errors, 429 and
 * 5xx transient (429 after its Retry-After), an unreachable host transient, a bad input refused before any call.
 */
describe('PagerDuty adapter: answers and error mapping', () => {
  let pd: PagerDutyFake;
  before(async () => {
    pd = await startPagerDutyFake({ routingKey: KEY });
  });
  after(async () => pd?.stop());

  const ctx = (endpoint: string, secret: string | null = KEY) =>
    ({
      deps: { config: { AWP_ALLOW_PRIVATE_EGRESS: true } },
      connector: { endpoint },
      secret,
      idempotencyKey: 'bac_unit',
    }) as unknown as ProviderCallContext;
  const trigger = { action: 'trigger', dedupKey: 'unit-1', summary: 'db down', severity: 'critical' };
  const page = (input: Record<string, unknown>, c = ctx(pd.url)) => pagerDutyAdapter.call('incident.page', input, c);

  it('202: succeeded, the dedup key as the reference; a repeated trigger opens nothing more', async () => {
    const first = await page(trigger);
    assert.deepEqual([first.status, first.providerRef], ['succeeded', 'unit-1']);
    assert.equal((await page(trigger)).status, 'succeeded');
    assert.equal(pd.opened(), 1);
    assert.equal((await page({ action: 'resolve', dedupKey: 'unit-1' })).status, 'succeeded');
    assert.equal(pd.incidents.get('unit-1')!.status, 'resolved');
  });

  it('429 is transient after its Retry-After; 5xx transient; an unreachable host transient', async () => {
    pd.failNext({ status: 429, retryAfter: 7 });
    const limited = await page(trigger);
    assert.deepEqual([limited.status, limited.error?.code, limited.error?.transient], ['failed', 'rateLimited', true]);
    assert.equal(limited.error?.retryAfterMs, 7000);
    pd.failNext({ status: 500 });
    const down = await page(trigger);
    assert.deepEqual([down.error?.code, down.error?.transient], ['pagerDutyUnavailable', true]);
    const gone = await page(trigger, ctx('http://127.0.0.1:1'));
    assert.deepEqual([gone.error?.code, gone.error?.transient], ['connection', true]);
  });

  it("400 (a routing key PagerDuty does not know) is permanent and says PagerDuty's errors", async () => {
    const refused = await page(trigger, ctx(pd.url, 'R0UT1NGKEYwrong'));
    assert.deepEqual([refused.error?.code, refused.error?.transient], ['invalidEvent', false]);
    assert.match(refused.error!.message, /Event object is invalid: 'routing_key' is invalid/);
    assert.ok(!refused.error!.message.includes('R0UT1NGKEYwrong'), 'the routing key is not echoed');
  });

  it('a bad input is refused without a call; no credential or another capability throws', async () => {
    const before = pd.events.length;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ action: 'page', dedupKey: 'x' }, /action is trigger/],
      [{ action: 'trigger', summary: 's' }, /dedupKey is required/],
      [{ action: 'trigger', dedupKey: 'x'.repeat(256), summary: 's' }, /dedupKey is required/],
      [{ action: 'trigger', dedupKey: 'x', summary: ' ' }, /summary is required/],
    ];
    for (const [input, why] of cases) {
      const out = await page(input);
      assert.deepEqual([out.error?.code, out.error?.transient], ['invalidInput', false]);
      assert.match(out.error!.message, why);
    }
    assert.equal(pd.events.length, before, 'nothing was sent');
    await assert.rejects(page(trigger, ctx(pd.url, null)), /no credential/);
    await assert.rejects(pagerDutyAdapter.call('msg.chat', trigger, ctx(pd.url)), /does not do msg.chat/);
  });
});
