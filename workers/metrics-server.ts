import http from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { WORK_METRICS } from '../jobs/metrics.js';
import type { Deps } from '../shared/deps.js';
import type { Stoppable } from '../shared/lifecycle.js';

function allowed(req: http.IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const sent = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /metrics of a worker, delivery or clock process on METRICS_PORT (on
 * HOST), when set: what the process counted (runs, steps, jobs, webhook
 * deliveries) and its own runtime (event-loop lag, heap, GC). With
 * METRICS_TOKEN set a scraper must send it as a bearer token.
 */
export async function serveWorkMetrics(deps: Deps, processName: string): Promise<Stoppable[]> {
  const port = deps.config.METRICS_PORT;
  if (port === undefined) return [];
  const runtime = new Registry();
  collectDefaultMetrics({ register: runtime, prefix: 'awp_' });
  const registry = Registry.merge([runtime, WORK_METRICS]);
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') return void res.writeHead(404).end();
    if (!allowed(req, deps.config.METRICS_TOKEN)) return void res.writeHead(401).end();
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, deps.config.HOST, resolve));
  deps.log.info(
    { url: `http://${deps.config.HOST}:${(server.address() as AddressInfo).port}/metrics`, process: processName },
    'metrics listening',
  );
  return [{ name: 'metrics', stop: () => new Promise<void>((resolve) => server.close(() => resolve())) }];
}
