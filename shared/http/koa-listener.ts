import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A Koa app as the request listener of an http.Server. Koa's callback returns a promise that never rejects (Koa
 * answers a failed request itself, through ctx.onerror), and the server drops whatever a listener returns: `void`
 * says so, where passing the callback as it is would hand the server a promise it never looks at.
 */
export function koaListener(app: {
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = app.callback();
  return (req, res) => void handle(req, res);
}
