import Router from '@koa/router';
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import { sha256 } from '../../shared/crypto.js';
import { claimIdempotencyKey, releaseIdempotencyKey, storeIdempotentResponse } from '../../jobs/accounts/idempotency.js';
import type { Deps } from '../../shared/deps.js';
import { AppError, conflict, notImplemented } from '../../shared/errors.js';
import { admitWorkflowRequest } from '../../shared/auth/workflow-allowance.js';
import { AnyObject } from '../../shared/schemas/common.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { assertValid } from '../../shared/validation.js';
import { requireAuth } from '../middleware/auth.js';
import { isSandboxBody, sandboxSession } from '../../shared/auth/sandbox.js';
import { RawReply, Reply, type AnyRoute } from '../../shared/http/route-spec.js';

/** `/v1/runs/{runId}` → `/v1/runs/:runId` */
export function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Where two paths overlap (`/v1/events/subscriptions`, `/v1/events/{eventId}`)
 * the literal segment must win, so routes are registered literal-first,
 * segment by segment; the table's own order then does not matter.
 */
function literalFirst(a: AnyRoute, b: AnyRoute): number {
  const sa = a.path.split('/');
  const sb = b.path.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]!.startsWith('{') ? 1 : 0;
    const pb = sb[i]!.startsWith('{') ? 1 : 0;
    if (pa !== pb) return pa - pb;
  }
  return 0;
}

/** A sandbox caller's own session (continued from X-Sandbox-Session, or new), echoed so the caller can continue it. */
async function sandboxCaller(ctx: Context, deps: Deps): Promise<Principal> {
  const { principal, session } = await sandboxSession(deps, ctx.get('x-sandbox-session') || undefined);
  ctx.set('X-Sandbox-Session', session);
  return principal;
}

/**
 * The one place a RouteSpec meets Koa: auth and scopes, validation, the
 * workflow allowance, idempotent replay, then the handler, then the reply.
 */
export function mountRoutes(routes: AnyRoute[], deps: Deps): Router {
  const router = new Router();
  for (const spec of [...routes].sort(literalFirst)) {
    router.register(koaPath(spec.path), [spec.method], async (ctx: Context) => {
      const principal: Principal | null =
        spec.auth === 'bearer' ? requireAuth(ctx, spec.scopes)
        : spec.auth === 'sandboxOrBearer' ? (!ctx.state.principal && isSandboxBody(ctx.state.body) ? await sandboxCaller(ctx, deps) : requireAuth(ctx, spec.scopes))
        : (ctx.state.principal ?? null);
      const params = spec.params ? assertValid(spec.params, { ...ctx.params }, 'params') : { ...ctx.params };
      const query = spec.query ? assertValid(spec.query, { ...ctx.query }, 'query') : {};
      const bodySchema = spec.body ?? (spec.method === 'GET' ? undefined : AnyObject);
      const body = bodySchema ? assertValid(bodySchema, ctx.state.body ?? {}, 'body') : undefined;
      if (!spec.handler) {
        throw notImplemented(`${spec.method} ${spec.path} is declared in the contract but not implemented yet${spec.pendingIssue ? ` (issue ${spec.pendingIssue})` : ''}`);
      }

      // Replay is per account, so only an authenticated POST can carry a key.
      const owner = ctx.method === 'POST' && principal && !spec.streams ? principal.accountId : null;
      const key = owner ? ctx.get('idempotency-key') : '';
      const idem = owner && key ? { owner, key } : null;
      if (idem) {
        if (!IDEMPOTENCY_KEY.test(key)) throw new AppError('invalidPayload', 'Idempotency-Key must be 1-255 printable ASCII characters');
        const started = await claimIdempotencyKey(deps, idem.owner, key, sha256(`${ctx.method} ${ctx.path}\n${ctx.state.rawBody ?? ''}`));
        if (started.kind === 'mismatch') throw conflict('Idempotency-Key was already used with a different request');
        if (started.kind === 'inProgress') throw conflict('A request with this Idempotency-Key is still in progress');
        if (started.kind === 'replay') {
          ctx.status = started.status;
          ctx.set({ ...started.headers, 'Idempotent-Replayed': 'true' });
          ctx.body = started.body;
          return;
        }
      }

      try {
        if (spec.countsAsWorkflow && principal) await admitWorkflowRequest(deps, principal);
        const controller = new AbortController();
        // The response's close (not the request's, which fires once its body is read) says the client went away.
        ctx.res.once('close', () => { if (!ctx.res.writableFinished) controller.abort(); });
        const result = await spec.handler(
          { body, params, query, principal, headers: ctx.headers as Record<string, string | undefined>, requestId: ctx.state.requestId, ip: ctx.ip, signal: controller.signal },
          deps,
        );
        if (result instanceof RawReply) {
          ctx.respond = false;
          await result.run(ctx.req, ctx.res, body);
          return;
        }
        const reply = result instanceof Reply ? result : new Reply(200, result);
        ctx.status = reply.status;
        ctx.set(reply.headers);
        if (reply.body instanceof Readable) {
          ctx.req.setTimeout(0);
          ctx.body = reply.body;
        } else {
          ctx.body = reply.body;
          if (idem) await storeIdempotentResponse(deps, idem.owner, key, reply.status, reply.body, reply.headers);
        }
      } catch (err) {
        if (idem) await releaseIdempotencyKey(deps, idem.owner, key);
        throw err;
      }
    });
  }
  return router;
}
