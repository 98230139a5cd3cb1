import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

/** Channels routes: success, 400, 401, 404 and another account's records (404). */
describe('channels API: threads, touchpoints, callbacks', function () {
  this.timeout(20_000);
  let owner: { token: string };
  let other: { token: string };
  const call = (who: { token: string } | null, method: string, path: string, body?: unknown) =>
    harness.call(method, path, { ...(who ? { token: who.token } : {}), ...(body === undefined ? {} : { body }) });
  before(async () => {
    owner = await harness.account();
    other = await harness.account();
  });

  it('upserts a thread by externalKey: the same key gives the same threadId', async () => {
    const first = await call(owner, 'POST', '/v1/channels/threads', {
      externalKey: 'conv-1',
      channel: 'sms',
      participants: [{ role: 'provider', address: '+4930555' }],
    });
    assert.equal(first.status, 201, first.text);
    const again = await call(owner, 'POST', '/v1/channels/threads', {
      externalKey: 'conv-1',
      channel: 'sms',
      caseId: 'case-9',
    });
    assert.equal(again.status, 200);
    assert.deepEqual(
      [again.body.thread.threadId, again.body.created, again.body.thread.refs.caseId],
      [first.body.thread.threadId, false, 'case-9'],
    );
    const theirs = await call(other, 'POST', '/v1/channels/threads', { externalKey: 'conv-1', channel: 'sms' });
    assert.notEqual(theirs.body.thread.threadId, first.body.thread.threadId, 'keys are per account');
    assert.deepEqual(
      (await call(owner, 'GET', '/v1/channels/threads?caseId=case-9')).body.threads.map((t: any) => t.threadId),
      [first.body.thread.threadId],
    );
  });

  it('records and lists touchpoints; the timeline is in ascending at', async () => {
    const thread = (await call(owner, 'POST', '/v1/channels/threads', { channel: 'email' })).body.thread;
    const late = await call(owner, 'POST', '/v1/channels/touchpoints', {
      threadId: thread.threadId,
      direction: 'inbound',
      status: 'received',
      at: '2030-01-02T00:00:00Z',
    });
    const early = await call(owner, 'POST', '/v1/channels/touchpoints', {
      threadId: thread.threadId,
      direction: 'outbound',
      at: '2030-01-01T00:00:00Z',
    });
    assert.equal(late.status, 201, late.text);
    assert.equal(
      (await call(owner, 'GET', `/v1/channels/touchpoints/${early.body.touchpoint.touchpointId}`)).body.touchpoint
        .status,
      'recorded',
    );
    assert.deepEqual(
      (
        await call(owner, 'GET', `/v1/channels/touchpoints?threadId=${thread.threadId}&status=received`)
      ).body.touchpoints.map((t: any) => t.touchpointId),
      [late.body.touchpoint.touchpointId],
    );
    const page1 = await call(owner, 'GET', `/v1/channels/threads/${thread.threadId}/timeline?limit=1`);
    assert.deepEqual(
      page1.body.entries.map((e: any) => [e.kind, e.ref]),
      [['touchpoint', early.body.touchpoint.touchpointId]],
    );
    const page2 = await call(
      owner,
      'GET',
      `/v1/channels/threads/${thread.threadId}/timeline?limit=1&cursor=${page1.body.nextCursor}`,
    );
    assert.deepEqual(
      page2.body.entries.map((e: any) => e.ref),
      [late.body.touchpoint.touchpointId],
    );
    assert.equal((await call(owner, 'GET', `/v1/channels/threads/${thread.threadId}/timeline?cursor=bad`)).status, 400);
  });

  it('400 on bad bodies and queries', async () => {
    assert.equal((await call(owner, 'POST', '/v1/channels/threads', { channel: 'pigeon' })).status, 400);
    assert.equal(
      (await call(owner, 'POST', '/v1/channels/touchpoints', { threadId: 'thr_x', direction: 'sideways' })).status,
      400,
    );
    assert.equal((await call(owner, 'GET', '/v1/channels/threads?channel=fax')).status, 400);
    assert.equal(
      (await call(owner, 'POST', '/v1/channels/callbacks', { status: 'delivered' })).status,
      400,
      'connectorId is required',
    );
  });

  it('401 without a token', async () => {
    for (const [method, path] of [
      ['GET', '/v1/channels/threads'],
      ['POST', '/v1/channels/threads'],
      ['GET', '/v1/channels/touchpoints'],
      ['POST', '/v1/channels/callbacks?connectorId=x'],
      ['GET', '/v1/channels/callbacks'],
    ]) {
      assert.equal((await call(null, method!, path!, method === 'POST' ? {} : undefined)).status, 401, path);
    }
  });

  it("404 for unknown records, and for another account's", async () => {
    const thread = (await call(owner, 'POST', '/v1/channels/threads', { channel: 'chat' })).body.thread;
    const tp = (
      await call(owner, 'POST', '/v1/channels/touchpoints', { threadId: thread.threadId, direction: 'internal' })
    ).body.touchpoint;
    assert.equal((await call(owner, 'GET', '/v1/channels/threads/thr_missing')).status, 404);
    assert.equal((await call(other, 'GET', `/v1/channels/threads/${thread.threadId}`)).status, 404);
    assert.equal((await call(other, 'GET', `/v1/channels/threads/${thread.threadId}/timeline`)).status, 404);
    assert.equal((await call(other, 'GET', `/v1/channels/touchpoints/${tp.touchpointId}`)).status, 404);
    assert.equal(
      (await call(other, 'POST', '/v1/channels/touchpoints', { threadId: thread.threadId, direction: 'inbound' }))
        .status,
      404,
    );
    assert.equal(
      (await call(owner, 'POST', '/v1/channels/callbacks?connectorId=nope', { status: 'delivered' })).status,
      404,
    );
    assert.deepEqual(
      (await call(other, 'GET', `/v1/channels/touchpoints?threadId=${thread.threadId}`)).body.touchpoints,
      [],
    );
  });
});
