import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../api/app.js';
import { ALL_ROUTES } from '../../api/routes/index.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { koaListener } from '../../shared/http/koa-listener.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { harness } from './harness.js';

/**
 * A second app on the same Redis/Postgres with other settings or extra
 * routes (small limits, a test-only workflow route), listening on its own port.
 */
export async function startExtraApp(overrides: Record<string, string>, extraRoutes: AnyRoute[] = []) {
  const deps = createDeps(harness.configWith(overrides), createLogger('silent'));
  const server = http.createServer(koaListener(buildApp(deps, [...ALL_ROUTES, ...extraRoutes])));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deps,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await deps.close();
    },
  };
}
