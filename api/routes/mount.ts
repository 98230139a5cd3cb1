import Router from '@koa/router';
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import { claimIdempotencyKey, requestFingerprint } from '../../jobs/accounts/idempotency.js';
import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { requireAuth } from '../middleware/auth.js';
import { FORM } from '../middleware/body.js';
import { runHandler, validateInput } from './pipeline.js';
import { isSandboxBody, sandboxSession } from '../../jobs/sandbox/session.js';
import { Reply, type AnyRoute } from '../../shared/http/route-spec.js';

/** `/v1/runs/{runId}` → `/v1/runs/:runId` */
export function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** A POST whose body asks for a stream (`stream: true`, as POST /v1/orchestrator/run takes it) answers with one. */
function asksForStream(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}

/**
 * The fingerprint is over the body as the client sent it (parsed), so the same JSON in another key order is the same
 * request.
 */
async function claimKey(deps: Deps, principal: Principal, key: string, ctx: Context) {
  if (!IDEMPOTENCY_KEY.test(key))
    throw new AppError('invalidPayload', 'Idempotency-Key must be 1-255 printable ASCII characters');
  return claimIdempotencyKey(deps, principal, key, requestFingerprint(ctx.method, ctx.path, ctx.state.body ?? {}));
}

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

/**
 * The parsed body: a form's fields on a route that takes forms, else the JSON (a form elsewhere: malformed JSON). A
 * body over the route's own limit is 413: the reader let it through for a route that takes more (maxBodyBytes).
 */
function bodyFor(spec: AnyRoute, ctx: Context, deps: Deps): unknown {
  const limit = Math.max(spec.maxBodyBytes ?? 0, deps.config.MAX_BODY_BYTES);
  if (((ctx.state.bodyBytes as number | undefined) ?? 0) > limit)
    throw new AppError('payloadTooLarge', `Body exceeds ${limit} bytes`);
  if (spec.formBody && FORM.test(ctx.get('content-type'))) {
    const fields: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(String(ctx.state.rawBody ?? ''))) {
      const had = fields[k];
      fields[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
    }
    return fields;
  }
  if (ctx.state.bodyRefused) throw ctx.state.bodyRefused as AppError;
  return ctx.state.body;
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
 * Validation, allowance and handler are the pipeline's (./pipeline.ts), the
 * same path MCP tool calls and A2A messages take.
 */
export function mountRoutes(routes: AnyRoute[], deps: Deps): Router {
  const router = new Router();
  for (const spec of [...routes].sort(literalFirst)) {
    router.register(koaPath(spec.path), [spec.method], async (ctx: Context) => {
      const principal: Principal | null =
        spec.auth === 'bearer'
          ? requireAuth(ctx, spec.scopes, spec.transport)
          : spec.auth === 'sandboxOrBearer'
            ? !ctx.state.principal && isSandboxBody(ctx.state.body)
              ? await sandboxCaller(ctx, deps)
              : requireAuth(ctx, spec.scopes, spec.transport)
            : (ctx.state.principal ?? null);
      const { params, query, body } = validateInput(spec, {
        params: ctx.params,
        query: ctx.query,
        body: bodyFor(spec, ctx, deps),
      });

      // Replay is per account and token, so only an authenticated POST can carry a key.
      const key = ctx.method === 'POST' && principal ? ctx.get('idempotency-key') : '';
      // Streams are never recorded (their body is produced as it is sent), so they skip the key altogether.
      const claim = key && !spec.streams && !asksForStream(body) ? await claimKey(deps, principal!, key, ctx) : null;
      if (claim?.kind === 'replay') {
        ctx.status = claim.status;
        ctx.set(claim.headers);
        ctx.body = claim.body;
        return;
      }
      const idem = claim?.claim;
      const alive = idem?.keepAlive();

      try {
        const controller = new AbortController();
        // The response's close (not the request's, which fires once its body is read) says the client went away.
        ctx.res.once('close', () => {
          if (!ctx.res.writableFinished) controller.abort();
        });
        const result = await runHandler(
          spec,
          {
            body,
            params,
            query,
            principal,
            headers: ctx.headers as Record<string, string | undefined>,
            requestId: ctx.state.requestId,
            rawBody: ctx.state.rawBody,
            ip: ctx.ip,
            origin: `${ctx.protocol}://${ctx.host}`,
            signal: controller.signal,
          },
          // What the handler and its services log names the request and the caller's account.
          {
            ...deps,
            log: ((ctx.state.log as Deps['log'] | undefined) ?? deps.log).child(
              principal ? { accountId: principal.accountId } : {},
            ),
          },
        );
        const reply = result instanceof Reply ? result : new Reply(200, result);
        ctx.status = reply.status;
        ctx.set(reply.headers);
        if (reply.body instanceof Readable) {
          await idem?.release();
          ctx.req.setTimeout(0);
          ctx.body = reply.body;
        } else {
          ctx.body = reply.body;
          await idem?.finish(
            { status: reply.status, body: reply.body, headers: reply.headers },
            spec.returnsSecret === true,
          );
        }
      } catch (err) {
        await idem?.release();
        throw err;
      } finally {
        alive?.stop();
      }
    });
  }
  return router;
}
