import Koa from 'koa';
import type { Deps } from '../shared/deps.js';
import { AppError } from '../shared/errors.js';
import { adminBoard } from './middleware/admin-board.js';
import { authenticate } from './middleware/auth.js';
import { dashboard } from './middleware/dashboard.js';
import { jsonBody } from './middleware/body.js';
import { errorEnvelope } from './middleware/errors.js';
import { metrics } from './middleware/metrics.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { sessionAuth } from './middleware/session.js';
import { traceRequests } from './middleware/tracing.js';
import { useModules } from '../jobs/module-registry.js';
import { MODULES } from '../jobs/modules.js';
import { ALL_ROUTES } from './routes/index.js';
import { mountRoutes } from './routes/mount.js';
import type { AnyRoute } from '../shared/http/route-spec.js';

/**
 * Load balancers ask `GET /healthz` several times a second per instance: it
 * is answered right after the error envelope, from its route's own handler
 * (declared once, in the route table), without a request id, an access-log
 * line, authentication, rate limiting or routing. It takes no input.
 */
function probeFirst(routes: AnyRoute[], deps: Deps): Koa.Middleware {
  const probe = routes.find((r) => r.method === 'GET' && r.path === '/healthz')?.handler;
  return async (ctx, next) => {
    if (!probe || ctx.path !== '/healthz' || ctx.method !== 'GET') return next();
    ctx.body = await probe({} as never, deps);
  };
}

/**
 * The middleware order is the architecture: a span (when tracing), envelope errors, tag the request,
 * know the caller, charge the rate limit, then the admin board or the JSON
 * routes. Never listens; `server.ts` and the tests do.
 */
export function buildApp(deps: Deps, routes: AnyRoute[] = ALL_ROUTES): Koa {
  useModules(MODULES);
  const app = new Koa({ proxy: deps.config.TRUST_PROXY });
  app.silent = true; // errors are logged by the envelope middleware with their request id
  const router = mountRoutes(routes, deps);
  const prometheus = metrics(deps);
  const tracing = traceRequests();
  if (tracing) app.use(tracing);
  app.use(prometheus.observe);
  app.use(errorEnvelope);
  app.use(probeFirst(routes, deps));
  app.use(requestContext(deps.log));
  app.use(dashboard());
  app.use(authenticate(deps));
  app.use(sessionAuth(deps));
  app.use(prometheus.serve);
  app.use(rateLimit(deps));
  app.use(adminBoard(deps));
  // The reader's cap is the largest body any route takes; each route holds its own limit (mount.ts).
  app.use(jsonBody(Math.max(deps.config.MAX_BODY_BYTES, ...routes.map((r) => r.maxBodyBytes ?? 0))));
  app.use(async (ctx, next) => {
    await next();
    // Nothing answered and allowedMethods found no other method for the path.
    if (ctx.status === 404 && ctx.body == null) throw new AppError('notFound', `No route ${ctx.method} ${ctx.path}`);
  });
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new AppError('methodNotAllowed', 'Method not allowed on this path'),
      notImplemented: () => new AppError('methodNotAllowed', 'Method not supported'),
    }),
  );
  return app;
}
