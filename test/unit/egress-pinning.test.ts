import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { PageReadError, fetchPage } from '../../jobs/hunt/page-fetch.js';
import { EgressRefused, REFUSED_TARGET, egressFetch } from '../../shared/http/egress.js';
import { startPinningProxy } from '../../shared/http/pinning-proxy.js';
import { ALLOWED, FORBIDDEN, rebinding, startRebindTargets, type RebindTargets } from '../support/rebinding.js';

const HOST = 'rebind.test';
const READ = { allowPrivate: true, timeoutMs: 5000, maxBytes: 10_000, accept: 'text/html' };

/** One CONNECT through the proxy, then a plain GET inside the tunnel; the status line of each. */
async function viaTunnel(proxyUrl: string, authority: string): Promise<{ connect: number; body?: string }> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'CONNECT', path: authority });
    req.on('connect', (res, socket: net.Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        return resolve({ connect: res.statusCode ?? 0 });
      }
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve({ connect: 200, body: Buffer.concat(chunks).toString().split('\r\n\r\n')[1] }));
      socket.write(`GET /tunnel HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('egress pins the address it checked (DNS rebinding)', () => {
  let t: RebindTargets;
  before(async () => {
    t = await startRebindTargets((req, res) => {
      if (req.url === '/redirect') return res.writeHead(302, { location: `http://${HOST}:${t.port}/landed` }).end();
      res.end('allowed reached');
    });
  });
  after(() => t.stop());
  beforeEach(() => {
    t.allowed.length = 0;
    t.forbidden.length = 0;
  });

  it('the client connects to the address it checked; a later lookup answering a forbidden one is refused', async () => {
    const pin = rebinding([ALLOWED], [FORBIDDEN]);
    const res = await egressFetch(true, t.at(HOST), { pin });
    assert.deepEqual([res.status, res.text], [200, 'allowed reached']);
    assert.deepEqual(pin.lookups, [HOST], 'one lookup for the call: the connection used its answer');
    assert.equal(t.allowed[0]?.host, `${HOST}:${t.port}`, 'the Host header names the host, not the address');
    // A new connection looks the name up again, and the now forbidden answer is checked before any connect.
    const refused = (err: unknown) => err instanceof EgressRefused && err.message === REFUSED_TARGET;
    await assert.rejects(egressFetch(true, t.at(HOST), { pin }), refused);
    assert.equal(t.forbidden.length, 0, 'the forbidden address was never connected to');
  });

  it('an answer mixing forbidden and allowed addresses connects to an allowed one only', async () => {
    for (let i = 0; i < 3; i++) {
      const pin = rebinding([FORBIDDEN, ALLOWED, FORBIDDEN], []);
      assert.equal((await egressFetch(true, t.at(HOST), { pin })).text, 'allowed reached');
    }
    assert.deepEqual([t.allowed.length, t.forbidden.length], [3, 0]);
  });

  it('with private egress off the ranges apply to what the resolver answered (metadata, loopback)', async () => {
    for (const address of ['169.254.169.254', '127.0.0.1', '::ffff:127.0.0.1']) {
      const pin = rebinding([address], [address]);
      const call = egressFetch(false, t.at(HOST), { pin, timeoutMs: 5000 });
      await assert.rejects(call, (err) => err instanceof EgressRefused, address);
    }
    assert.equal(t.allowed.length + t.forbidden.length, 0);
  });

  it('a literal address on the deny list is refused before any connect', async () => {
    await assert.rejects(egressFetch(true, t.at(FORBIDDEN), { pin: rebinding([], []) }), EgressRefused);
    assert.equal(t.forbidden.length, 0);
  });

  it('a redirect is checked again: a host rebinding on the 2nd hop never reaches the forbidden address', async () => {
    const pin = rebinding([ALLOWED], [FORBIDDEN]);
    const read = fetchPage(t.at(HOST, '/redirect'), { ...READ, pin });
    await assert.rejects(read, (err) => err instanceof PageReadError && err.reason === 'refused');
    assert.deepEqual(
      t.allowed.map((s) => s.path),
      ['/redirect'],
    );
    assert.deepEqual([pin.lookups.length, t.forbidden.length], [2, 0]);
  });

  it('a redirect to an allowed answer is followed to it', async () => {
    const pin = rebinding([ALLOWED], [ALLOWED]);
    const page = await fetchPage(t.at(HOST, '/redirect'), { ...READ, pin });
    assert.deepEqual([page.status, page.url, page.body.toString()], [200, t.at(HOST, '/landed'), 'allowed reached']);
  });

  describe('the pinning proxy chromium runs behind', () => {
    it('CONNECT: every tunnel to a host goes to the address checked first, however often it is asked for', async () => {
      const pin = rebinding([ALLOWED], [FORBIDDEN]);
      const proxy = await startPinningProxy(true, pin);
      try {
        for (let i = 0; i < 3; i++) {
          assert.deepEqual(await viaTunnel(proxy.url, `${HOST}:${t.port}`), { connect: 200, body: 'allowed reached' });
        }
        assert.equal(await proxy.refused(HOST), false);
        assert.deepEqual([pin.lookups.length, t.allowed.length, t.forbidden.length], [1, 3, 0]);
      } finally {
        await proxy.close();
      }
    });

    it('CONNECT to a host answering a forbidden address, or to one as a literal, is refused with 403', async () => {
      const pin = rebinding([FORBIDDEN], [ALLOWED]);
      const proxy = await startPinningProxy(true, pin);
      try {
        assert.equal((await viaTunnel(proxy.url, `${HOST}:${t.port}`)).connect, 403);
        assert.equal((await viaTunnel(proxy.url, `${HOST}:${t.port}`)).connect, 403, 'the refusal is pinned too');
        assert.equal((await viaTunnel(proxy.url, `${FORBIDDEN}:${t.port}`)).connect, 403);
        assert.equal(await proxy.refused(HOST), true);
        assert.equal(t.forbidden.length + t.allowed.length, 0);
      } finally {
        await proxy.close();
      }
    });

    it('plain http (absolute form): forwarded to the pinned address with the Host header kept', async () => {
      const pin = rebinding([ALLOWED], [FORBIDDEN]);
      const proxy = await startPinningProxy(true, pin);
      const get = () =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const { hostname, port } = new URL(proxy.url);
          http
            .get({ host: hostname, port, path: t.at(HOST, '/plain'), agent: false }, (res) => {
              let body = '';
              res.on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            })
            .on('error', reject);
        });
      try {
        assert.deepEqual(await get(), { status: 200, body: 'allowed reached' });
        assert.deepEqual(await get(), { status: 200, body: 'allowed reached' });
        const seen = [
          ['/plain', `${HOST}:${t.port}`],
          ['/plain', `${HOST}:${t.port}`],
        ];
        assert.deepEqual(
          t.allowed.map((s) => [s.path, s.host]),
          seen,
        );
        assert.deepEqual([pin.lookups.length, t.forbidden.length], [1, 0]);
      } finally {
        await proxy.close();
      }
    });
  });
});
