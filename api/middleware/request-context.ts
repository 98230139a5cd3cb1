import type { Context, Next } from 'koa';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../shared/log.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** nginx's convention for "the client went away before an answer was sent", so monitoring can count them apart. */
const CLIENT_CLOSED = 499;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane),
 * a child logger carrying it, and one access-log line when the response ends.
 *
 * The line is written when Node has handed the response over (`finish`), not
 * when the middleware chain unwinds: this middleware runs inside the error
 * envelope, so at unwind time an error has not been turned into its status
 * yet (Koa still says 404), and a streamed or `respond = false` answer is not
 * over. `res.statusCode` at `finish` is the status the client received.
 */
export function requestContext(log: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = SAFE_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = log.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const { res } = ctx;
    let logged = false;
    const accessLog = (aborted: boolean) => {
      if (logged) return;
      logged = true;
      res.off('finish', onFinish);
      res.off('close', onClose);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const status = aborted && !res.headersSent ? CLIENT_CLOSED : res.statusCode;
      (ctx.state.log as Logger).info(
        {
          method: ctx.method,
          path: ctx.path,
          status,
          ms: Math.round(ms * 10) / 10,
          accountId: ctx.state.principal?.accountId,
          ...(aborted ? { aborted: true } : {}),
        },
        'request',
      );
    };
    const onFinish = () => accessLog(false);
    // `close` without `finish`: the connection ended before the whole answer was written.
    const onClose = () => accessLog(!res.writableFinished);
    res.once('finish', onFinish);
    res.once('close', onClose);
    await next();
  };
}
