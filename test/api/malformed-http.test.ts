import assert from 'node:assert/strict';
import net from 'node:net';
import { startWeb } from '../../api/server.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { harness } from '../support/harness.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** The server closed the connection. */
  closed: boolean;
}

/** Writes `chunks` to a fresh connection and reads until the server closes it (the answer of a refused request). */
function raw(url: string, ...chunks: string[]): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      let body: unknown = rest.join('\r\n\r\n');
      try {
        body = JSON.parse(body as string);
      } catch {
        // stays text: the assertions below say what was expected
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed: true });
    });
    for (const c of chunks) socket.write(c);
  });
}

function assertEnvelope(res: RawAnswer, status: number, error: string) {
  assert.equal(res.status, status, JSON.stringify(res));
  assert.equal(res.headers['connection'], 'close');
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(res.body.ok, false, JSON.stringify(res.body));
  assert.equal(res.body.error, error);
  assert.equal(typeof res.body.message, 'string');
  assert.equal(res.body.requestId, res.headers['x-request-id']);
  assert.ok(res.closed);
}

describe('malformed HTTP gets the error envelope and the connection closed', () => {
  it('header lines ending in a bare LF are 400 invalidPayload', async () => {
    const res = await raw(harness.url, 'GET /v1/manifest HTTP/1.1\nHost: x\nX-A: 1\n\n');
    assertEnvelope(res, 400, 'invalidPayload');
    assert.match(res.body.message, /^Malformed HTTP request/);
  });

  it('a request line that is not HTTP is 400 invalidPayload', async () => {
    assertEnvelope(await raw(harness.url, 'HELLO THERE\r\n\r\n'), 400, 'invalidPayload');
  });

  it('headers larger than the limit, one big or many small, are 400 naming the limit', async () => {
    const big = await raw(harness.url, `GET /v1/manifest HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertEnvelope(big, 400, 'invalidPayload');
    assert.match(big.body.message, /headers exceed \d+ bytes/);
    const many = Array.from({ length: 3000 }, (_, i) => `X-H${i}: v\r\n`).join('');
    assertEnvelope(
      await raw(harness.url, `GET /v1/manifest HTTP/1.1\r\nHost: x\r\n${many}\r\n`),
      400,
      'invalidPayload',
    );
  });

  it('a well-formed request on the same server still gets its normal answer', async () => {
    const res = await harness.call('GET', '/v1/manifest');
    assert.equal(res.status, 200);
  });

  describe('half-sent requests (HTTP_*_TIMEOUT_MS from the config)', () => {
    let deps: Deps;
    let web: Awaited<ReturnType<typeof startWeb>>;
    before(async () => {
      deps = createDeps(
        harness.configWith({
          HTTP_HEADERS_TIMEOUT_MS: '300',
          HTTP_REQUEST_TIMEOUT_MS: '600',
          HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
        }),
        createLogger('silent'),
      );
      web = await startWeb(deps, 0, '127.0.0.1');
    });
    after(async () => {
      await web.stop();
      await deps.close();
    });

    it('headers that never finish are answered 408 requestTimeout and the connection closed', async () => {
      assertEnvelope(
        await raw(web.url, 'GET /v1/manifest HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n'),
        408,
        'requestTimeout',
      );
    });

    it('a body that never finishes is answered 408 requestTimeout and the connection closed', async () => {
      const res = await raw(
        web.url,
        'POST /v1/handshake HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ' +
          '100\r\n\r\n{"domains":',
      );
      assertEnvelope(res, 408, 'requestTimeout');
    });

    it('the server still answers complete requests', async () => {
      const res = await harness.call('GET', '/v1/manifest', {}, web.url);
      assert.equal(res.status, 200);
    });
  });
});
