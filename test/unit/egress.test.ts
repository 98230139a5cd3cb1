import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressError, egressFetch } from '../../shared/http/egress.js';

/**
 * A real local server whose routes misbehave on purpose: one never answers,
 * one stops halfway through its body, one streams without end. Each request's
 * connection close is observable, so a test can see the request was really
 * torn down rather than left running.
 */
function misbehavingServer() {
  let requests = 0;
  const closed: Array<() => void> = [];
  let onPartial: () => void = () => undefined;
  const server = http.createServer((req, res) => {
    requests++;
    res.on('close', () => closed.shift()?.());
    if (req.url === '/hang') return; // never answers
    if (req.url === '/partial') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('part', () => onPartial());
      return; // never ends
    }
    if (req.url === '/endless') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      return pump();
    }
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': '1000000' });
      res.write('x'.repeat(10)); // the rest would follow; a refusing client must not wait for it
      return;
    }
    res.end('hello');
  });
  return {
    server,
    requests: () => requests,
    /** Resolves when the next request's connection closes (mocha's timeout fails a test where it never does). */
    nextClose: () => new Promise<void>((r) => closed.push(r)),
    whenPartialSent: (fn: () => void) => (onPartial = fn),
  };
}

describe('egress: caller signal, time limit and size limit', () => {
  const s = misbehavingServer();
  let base = '';
  before(async () => {
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
  });
  after(() => {
    s.server.closeAllConnections();
    s.server.close();
  });

  it("aborting the caller's signal mid-body cancels the request and rejects with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error('run was canceled');
    s.whenPartialSent(() => controller.abort(reason));
    const closed = s.nextClose();
    await assert.rejects(
      egressFetch(true, `${base}/partial`, { signal: controller.signal, timeoutMs: 60_000 }),
      (err) => err === reason,
    );
    await closed; // the server saw its connection go away
  });

  it('a signal aborted before the call rejects without sending anything', async () => {
    const before = s.requests();
    const reason = new Error('already canceled');
    await assert.rejects(egressFetch(true, `${base}/`, { signal: AbortSignal.abort(reason) }), (err) => err === reason);
    assert.equal(s.requests(), before);
  });

  it('the per-call time limit covers waiting for headers: EgressError timeout, connection closed', async () => {
    const closed = s.nextClose();
    await assert.rejects(egressFetch(true, `${base}/hang`, { timeoutMs: 150 }), (err) => {
      assert.ok(err instanceof EgressError);
      assert.equal(err.reason, 'timeout');
      assert.equal(err.code, 'unavailable'); // transient: a step retries it
      assert.match(err.message, /127\.0\.0\.1:\d+ gave no complete answer within 150 ms/);
      return true;
    });
    await closed;
  });

  it('the time limit also covers a body that stops halfway, with a caller signal that never fires', async () => {
    const controller = new AbortController();
    s.whenPartialSent(() => undefined);
    const closed = s.nextClose();
    await assert.rejects(
      egressFetch(true, `${base}/partial`, { timeoutMs: 150, signal: controller.signal }),
      (err) => err instanceof EgressError && err.reason === 'timeout',
    );
    await closed;
    assert.equal(
      getEventListeners(controller.signal, 'abort').length,
      0,
      "the listener on the caller's signal is removed",
    );
  });

  it('size limit, truncate (default): an endless body yields its first maxBytes and truncated: true', async () => {
    const controller = new AbortController();
    const closed = s.nextClose();
    const res = await egressFetch(true, `${base}/endless`, {
      signal: controller.signal,
      timeoutMs: 30_000,
      maxBytes: 1000,
    });
    assert.deepEqual([res.status, res.text.length, res.text, res.truncated], [200, 1000, 'x'.repeat(1000), true]);
    await closed; // the rest was not read: the connection was dropped
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('size limit, refuse: an endless body rejects with EgressError tooLarge (permanent)', async () => {
    const closed = s.nextClose();
    await assert.rejects(egressFetch(true, `${base}/endless`, { maxBytes: 1000, oversize: 'refuse' }), (err) => {
      assert.ok(err instanceof EgressError);
      assert.deepEqual([err.reason, err.code, err.status], ['tooLarge', 'policyViolation', 422]);
      assert.match(err.message, /over the 1000-byte limit/);
      return true;
    });
    await closed;
  });

  it('size limit, refuse: a declared Content-Length over the limit is refused before the body arrives', async () => {
    const closed = s.nextClose();
    await assert.rejects(
      egressFetch(true, `${base}/declared`, { maxBytes: 1000, oversize: 'refuse', timeoutMs: 60_000 }),
      (err) => err instanceof EgressError && err.reason === 'tooLarge',
    );
    await closed;
  });

  it('a body within every limit comes back whole', async () => {
    const res = await egressFetch(true, `${base}/`, {
      signal: new AbortController().signal,
      timeoutMs: 30_000,
      maxBytes: 5,
      oversize: 'refuse',
    });
    assert.deepEqual([res.status, res.text, res.truncated], [200, 'hello', false]);
  });
});
