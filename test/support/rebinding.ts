import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EgressPin, PinnedAddress } from '../../shared/http/pinned-dns.js';

/**
 * DNS rebinding on one machine. Two real servers on the same port: the
 * allowed one on 127.0.0.1 and the forbidden one on 127.0.0.2 (also loopback
 * on Linux). The tests run with private egress allowed, so the forbidden
 * address is refused by the pin's own deny list, which holds even then.
 * `rebinding()` is a resolver that answers the allowed address first and
 * the forbidden one on every later lookup of the same name, recording them.
 */
export const ALLOWED = '127.0.0.1';
export const FORBIDDEN = '127.0.0.2';

export interface Seen {
  path: string;
  host: string;
}

export interface RebindTargets {
  port: number;
  /** Requests each server received (path and Host header). */
  allowed: Seen[];
  forbidden: Seen[];
  /** `http://<host>:<port><path>` */
  at(host: string, path?: string): string;
  stop(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

function server(seen: Seen[], handler: Handler) {
  return http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', host: req.headers.host ?? '' });
    handler(req, res);
  });
}

/** The allowed server runs `pages`; the forbidden one answers every request with `forbidden reached`. */
export async function startRebindTargets(pages: Handler): Promise<RebindTargets> {
  const allowed: Seen[] = [];
  const forbidden: Seen[] = [];
  const a = server(allowed, pages);
  const b = server(forbidden, (_req, res) => res.end('forbidden reached'));
  await new Promise<void>((r) => a.listen(0, ALLOWED, r));
  const port = (a.address() as AddressInfo).port;
  await new Promise<void>((resolve, reject) => b.once('error', reject).listen(port, FORBIDDEN, resolve));
  return {
    port,
    allowed,
    forbidden,
    at: (host, path = '/') => `http://${host}:${port}${path}`,
    async stop() {
      for (const s of [a, b]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

/** A resolver answering `first` on its first lookup of a name and `then` on later ones, recording each lookup. */
export function rebinding(first: string[], then: string[]): EgressPin & { lookups: string[] } {
  const lookups: string[] = [];
  const answer = (list: string[]): PinnedAddress[] =>
    list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  return {
    lookups,
    resolve: async (hostname) => {
      lookups.push(hostname);
      return answer(lookups.filter((h) => h === hostname).length === 1 ? first : then);
    },
    refuse: (address) => address === FORBIDDEN,
  };
}
