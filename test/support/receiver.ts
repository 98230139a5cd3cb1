import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  body: any;
  headers: http.IncomingHttpHeaders;
  verifiedWith: string[];
}

/**
 * A local webhook receiver that verifies every delivery with the
 * `standardwebhooks` package (an independent implementation of the spec)
 * against each secret it knows, and answers with the status `respond` picks.
 */
export async function startReceiver(
  secrets: () => string[],
  respond: (n: number, r: Received) => { status: number; headers?: Record<string, string> } = () => ({ status: 200 }),
) {
  const received: Received[] = [];
  const rejected: Array<{ headers: http.IncomingHttpHeaders; reason: string }> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const verifiedWith = secrets().filter((secret) => {
        try {
          new Webhook(secret).verify(raw, req.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      if (verifiedWith.length === 0) {
        rejected.push({ headers: req.headers, reason: 'signature did not verify' });
        res.statusCode = 401;
        res.end('bad signature');
        return;
      }
      const r = { id: String(req.headers['webhook-id']), body: JSON.parse(raw), headers: req.headers, verifiedWith };
      received.push(r);
      const answer = respond(received.length, r);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    rejected,
    stop: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

export async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}
