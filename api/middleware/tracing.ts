import type { Context, Next } from 'koa';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import { context } from '@opentelemetry/api';
import { contextOf, failSpan, inSpan, SpanKind, tracingOn } from '../../shared/telemetry/spans.js';

/** Asked several times a second by load balancers and scrapers: a span each would drown the traces that matter. */
const UNTRACED = new Set(['/healthz', '/livez', '/readyz', '/metrics']);

/**
 * One server span per request, the root of its trace, or a child of the caller's when it sent a W3C `traceparent`:
 * named by the route template (`POST /v1/orchestrator/run`, never raw ids), with the status the client got. It is
 * outermost, so the span covers the error envelope and every middleware, and what the request enqueues (a run's
 * steps, in whichever worker) joins its trace. Null while tracing is off: nothing is mounted.
 */
export function traceRequests(): ((ctx: Context, next: Next) => Promise<void>) | null {
  if (!tracingOn()) return null;
  return async (ctx, next) => {
    if (UNTRACED.has(ctx.path)) return next();
    const parent = contextOf(ctx.get('traceparent'));
    await inSpan(
      ctx.method,
      { kind: SpanKind.SERVER, parent, attributes: { [ATTR_HTTP_REQUEST_METHOD]: ctx.method } },
      async (span) => {
        // The access line is written on the response's `finish`, outside the middleware's async chain: its listeners
        // run in the request's span context, so that line carries the trace id too.
        context.bind(context.active(), ctx.res);
        try {
          await next();
        } finally {
          const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute;
          if (route) {
            span?.setAttribute(ATTR_HTTP_ROUTE, String(route));
            span?.updateName(`${ctx.method} ${String(route)}`);
          }
          span?.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, ctx.status);
          if (typeof ctx.state.requestId === 'string') span?.setAttribute('awp.request_id', ctx.state.requestId);
          const accountId = (ctx.state.principal as { accountId?: unknown } | undefined)?.accountId;
          if (typeof accountId === 'string') span?.setAttribute('awp.account_id', accountId);
          if (span && ctx.status >= 500) failSpan(span, null, String(ctx.status));
        }
      },
    );
  };
}
