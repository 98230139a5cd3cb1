import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * The soak's webhook endpoint, two paths on one local server. `/flaky`
 * answers by turns: 200, 500, 200, a hang past the service's timeout, 200,
 * 429 with Retry-After. `/dead` always answers 503, so its chains are
 * dead-lettered. Every delivery is verified with the subscription's secret
 * (standardwebhooks). An outage closes the port for a while and opens it again.
 */
export type Turn = 'ok' | 'error' | 'timeout' | 'tooMany';
const TURNS: Turn[] = ['ok', 'error', 'ok', 'timeout', 'ok', 'tooMany'];

export interface Receiver {
  url(path: 'flaky' | 'dead'): string;
  setSecret(path: 'flaky' | 'dead', secret: string): void;
  /** 2xx answers per `webhook-id` (the chain's root attempt id). */
  acknowledged: Map<string, number>;
  /** Answers given, by path and turn. */
  answers: Record<string, number>;
  badSignatures: number;
  outage(forMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startReceiver(timeoutMs: number): Promise<Receiver> {
  const secrets: Record<string, string> = {};
  const acknowledged = new Map<string, number>();
  const answers: Record<string, number> = {};
  let flakyCount = 0;
  let badSignatures = 0;
  const count = (k: string) => (answers[k] = (answers[k] ?? 0) + 1);
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const which = req.url?.startsWith('/dead') ? 'dead' : 'flaky';
      try {
        new Webhook(secrets[which] ?? '').verify(raw, req.headers as Record<string, string>);
      } catch {
        badSignatures++;
        res.writeHead(401).end('bad signature');
        return;
      }
      const id = String(req.headers['webhook-id']);
      const turn: Turn = which === 'dead' ? 'error' : TURNS[flakyCount++ % TURNS.length]!;
      count(`${which} ${turn}`);
      if (turn === 'ok') {
        acknowledged.set(id, (acknowledged.get(id) ?? 0) + 1);
        res.writeHead(200).end('ok');
      } else if (turn === 'tooMany') res.writeHead(429, { 'retry-after': '1' }).end('slow down');
      else if (turn === 'error') res.writeHead(which === 'dead' ? 503 : 500).end('not now');
      // The service gives up after its timeout; this answer lands on a closed socket, never as a success.
      else setTimeout(() => res.writeHead(504).end('late'), timeoutMs + 1000).unref();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (p) => `http://127.0.0.1:${port}/${p}`,
    setSecret: (p, s) => void (secrets[p] = s),
    acknowledged,
    answers,
    get badSignatures() {
      return badSignatures;
    },
    async outage(forMs) {
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      await closed;
      await new Promise((r) => setTimeout(r, forMs));
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
