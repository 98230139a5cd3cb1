import http from 'node:http';
import { requestDeps, type Deps } from '../shared/deps.js';
import { isMain, runProcess, type Stoppable } from '../shared/lifecycle.js';
import { buildApp } from './app.js';
import { hardenServer } from './http-server.js';
import { koaListener } from '../shared/http/koa-listener.js';
import { readyWithin } from '../shared/redis/connection.js';

const STARTUP_REDIS_WAIT_MS = 2_000;

/**
 * Starts the HTTP server. Its requests use `requestDeps`: with Postgres or
 * Redis away they answer 503 with Retry-After at once instead of waiting.
 * On stop it refuses new connections, lets in-flight requests finish and
 * closes idle keep-alive sockets; open streams are ended.
 */
export async function startWeb(
  deps: Deps,
  port = deps.config.PORT,
  host = deps.config.HOST,
): Promise<Stoppable & { server: http.Server; url: string }> {
  const web = requestDeps(deps);
  // Its own Redis connection refuses commands until connected: give it a moment, so the first requests after a start
  // are not refused for nothing (with Redis away, the web starts anyway and answers 503 until it is back).
  await readyWithin(web.redis, STARTUP_REDIS_WAIT_MS);
  const app = buildApp(web);
  const server = http.createServer(koaListener(app));
  hardenServer(server, deps.config, deps.log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  }).catch(async (err: unknown) => {
    await web.close();
    throw err;
  });
  const address = server.address() as { port: number };
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${address.port}`;
  deps.log.info({ url }, 'web listening');
  return {
    name: 'web',
    server,
    url,
    stop: async (graceOver) => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Streams and long waits (a synchronous run answer) would hold the close; 5 s is enough for ordinary requests.
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
        graceOver?.addEventListener('abort', () => server.closeAllConnections(), { once: true });
      });
      await web.close();
    },
  };
}

if (isMain(import.meta.url)) runProcess('web', async (deps) => [await startWeb(deps)]);
