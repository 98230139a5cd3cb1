import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { normalizeHost } from './address-ranges.js';
import { REFUSED_TARGET, resolveChecked, type EgressPin, type PinnedAddress } from './pinned-dns.js';

/**
 * A forward proxy on 127.0.0.1 that chromium is launched behind, so the
 * browser never resolves a name itself: every request, the page's and each
 * subresource's on any host, comes here (HTTP CONNECT for https and
 * WebSockets, absolute-form requests for plain http). Each host is resolved
 * and checked once for the proxy's life (one portal run) and every
 * connection goes to an address of that checked answer, so a page whose
 * host answers a public address first and a private one later keeps the
 * first. `refused` answers from the same pinned answer, so the run's own
 * check and the connection can never disagree.
 */
export interface PinningProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Chromium flags: everything through the proxy, loopback too (chromium bypasses it by default), no direct UDP. */
  chromiumArgs: string[];
  /** True when `hostname` is refused (checked once, then pinned): the same verdict the proxy acts on. */
  refused(hostname: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Hop-by-hop and proxy-only headers, never passed on (RFC 9110 §7.6.1). */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/** `host:port` of a CONNECT request (`[v6]:port` for IPv6), or null when it is not one. */
function authority(target: string | undefined): { host: string; port: number } | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]/]+):(\d{1,5})$/i.exec(target ?? '');
  const port = Number(m?.[2]);
  return m && port > 0 && port < 65536 ? { host: normalizeHost(m[1]!), port } : null;
}

/** A TCP connection to the first of `addresses` that accepts one. */
function connectFirst(addresses: PinnedAddress[], port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const attempt = (i: number, last?: Error) => {
      if (i >= addresses.length) return reject(last ?? new Error('no address'));
      const socket = net.connect({ host: addresses[i]!.address, port });
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (err) => attempt(i + 1, err));
    };
    attempt(0);
  });
}

export async function startPinningProxy(allowPrivate: boolean, pin: EgressPin = {}): Promise<PinningProxy> {
  const pinned = new Map<string, Promise<PinnedAddress[]>>();
  const checked = (host: string): Promise<PinnedAddress[]> => {
    const key = normalizeHost(host);
    let answer = pinned.get(key);
    if (!answer) {
      answer = resolveChecked(key, allowPrivate, pin);
      answer.catch(() => undefined); // a refusal is pinned too; every caller awaits and handles it
      pinned.set(key, answer);
    }
    return answer;
  };
  const sockets = new Set<Duplex>();
  const track = (s: Duplex) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  const forward = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return res.writeHead(400).end('absolute-form http URL expected');
    }
    if (url.protocol !== 'http:') return res.writeHead(400).end('only http is proxied; https goes through CONNECT');
    let addresses: PinnedAddress[];
    try {
      addresses = await checked(url.hostname);
    } catch {
      return res.writeHead(403, { 'content-type': 'text/plain' }).end(REFUSED_TARGET);
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
    headers.host = url.host;
    let upstream: net.Socket;
    try {
      upstream = await connectFirst(addresses, Number(url.port || 80));
    } catch {
      return res.writeHead(502).end('could not reach the host');
    }
    track(upstream);
    // The socket is already open to a checked address: the request rides on it, nothing resolves the name again.
    const path = `${url.pathname}${url.search}`;
    const out = http.request({ createConnection: () => upstream, method: req.method, path, headers });
    out.on('response', (answer) => {
      const raw: string[] = [];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) {
        if (!HOP.has(answer.rawHeaders[i]!.toLowerCase())) raw.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, raw);
      answer.pipe(res);
    });
    out.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('could not reach the host')));
    req.pipe(out);
  };
  // Each handler answers its own failures (a 4xx/5xx or a closed tunnel): the server has no use for their promises.
  const server = http.createServer((req, res) => void forward(req, res));

  const tunnel = async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    const target = authority(req.url);
    if (!target) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    let upstream: net.Socket;
    try {
      upstream = await connectFirst(await checked(target.host), target.port);
    } catch (err) {
      const refused = (err as Error).message === REFUSED_TARGET;
      return client.end(`HTTP/1.1 ${refused ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`);
    }
    track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  };
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => void tunnel(req, client, head));
  server.on('connection', track);

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url,
    // WebRTC's UDP (STUN) would bypass an HTTP proxy: only proxied traffic is allowed.
    chromiumArgs: [
      `--proxy-server=${url}`,
      '--proxy-bypass-list=<-loopback>',
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    ],
    refused: (hostname) =>
      checked(hostname).then(
        () => false,
        () => true,
      ),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
