import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { openSse } from '../support/sse.js';

/**
 * GET /v1/events/stream: the account's outbox events as they happen, their heads only, by type pattern; what the
 * dashboard's lists (cases, missions, pay, schedules, signal rules) reload on.
 */
describe('GET /v1/events/stream: the account’s events, live', function () {
  this.timeout(60_000);
  const record = (token: string, type: string, subject: string) =>
    harness.call('POST', '/v1/events', { token, body: { type, subject, payload: { n: 1 } } });

  it('sends ready, then the heads of matching events recorded after it (not others, not earlier ones)', async () => {
    const a = await harness.account();
    assert.equal((await record(a.token, 'crm.deal.updated', 'before')).status, 201);
    const stream = await openSse('/v1/events/stream?types=crm.deal.*,crm.invoice.sent', a.token);
    await stream.until((f) => f.event === 'ready');
    const made = await record(a.token, 'crm.deal.updated', 'after');
    assert.equal(made.status, 201, made.text);
    await record(a.token, 'shop.order.placed', 'not followed');
    await record(a.token, 'crm.invoice.sent', 'followed too');
    const settled = await stream.until((f) => f.event === 'event' && f.data.type === 'crm.invoice.sent');
    assert.deepEqual(Object.keys(settled.data).sort(), ['at', 'eventId', 'subject', 'type'], 'a head, no payload');
    const events = stream.frames().filter((f) => f.event === 'event');
    assert.deepEqual(
      events.map((f) => f.data.subject),
      ['after', 'followed too'],
    );
    assert.equal(events[0]!.data.eventId, made.body.event.eventId);
    stream.close();
  });

  it("another account's events never reach the stream", async () => {
    const a = await harness.account();
    const b = await harness.account();
    const stream = await openSse('/v1/events/stream', b.token);
    await stream.until((f) => f.event === 'ready');
    await record(a.token, 'crm.deal.updated', 'of a');
    await record(b.token, 'crm.deal.updated', 'of b');
    await stream.until((f) => f.event === 'event' && f.data.subject === 'of b');
    assert.ok(!stream.text.includes('of a'), stream.text);
    stream.close();
  });

  it('400 for a malformed type list, 401 without a token, 403 without events:read', async () => {
    const a = await harness.account();
    const bad = await harness.call('GET', '/v1/events/stream?types=crm.*,,DROP', { token: a.token });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error, 'invalidPayload');
    assert.equal((await harness.call('GET', '/v1/events/stream')).status, 401);
    const narrow = await harness.call('POST', '/v1/tokens', { token: a.token, body: { scopes: ['runs:read'] } });
    assert.equal(narrow.status, 201, narrow.text);
    const refused = await harness.call('GET', '/v1/events/stream', { token: narrow.body.token });
    assert.equal(refused.status, 403, refused.text);
  });
});
