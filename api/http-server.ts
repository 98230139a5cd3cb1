import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../shared/config.js';
import type { ErrorCode } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';

type TimeoutConfig = Pick<Config, 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'>;

/** llhttp's reasons are fixed phrases ("Missing expected CR after header value"); anything else is not echoed. */
const PLAIN_REASON = /^[A-Za-z0-9 .,'()-]{1,120}$/;

/** The error envelope as a complete HTTP/1.1 response that closes the connection. */
function envelopeResponse(status: number, error: ErrorCode, message: string, requestId: string): string {
  const body = JSON.stringify({ ok: false, error, message, requestId });
  return [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${requestId}`,
    '',
    body,
  ].join('\r\n');
}

function describe(err: NodeJS.ErrnoException & { reason?: string }): {
  status: number;
  error: ErrorCode;
  message: string;
} {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, error: 'requestTimeout', message: 'The request was not received in time; send it again' };
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return { status: 400, error: 'invalidPayload', message: `Request headers exceed ${http.maxHeaderSize} bytes` };
  const reason = err.reason && PLAIN_REASON.test(err.reason) ? err.reason : 'the request could not be parsed';
  return { status: 400, error: 'invalidPayload', message: `Malformed HTTP request: ${reason}` };
}

/**
 * Node answers what its HTTP parser refuses (bare LF line endings, oversized
 * headers, a request that timed out) with a bare status line; this answers
 * with the envelope every other failure gets. Like Node's own handler, it
 * writes only while no response of the connection has started, since bytes
 * after a started response would corrupt it for the client.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, log: Logger): void {
  const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const { status, error, message } = describe(err);
  log.info({ requestId, status, reason: err.code }, 'request refused by the HTTP parser');
  socket.end(envelopeResponse(status, error, message, requestId), () => socket.destroy());
}

/**
 * Timeouts and parser-error answers of the API's HTTP server. Headers must
 * arrive within HTTP_HEADERS_TIMEOUT_MS and the whole request within
 * HTTP_REQUEST_TIMEOUT_MS, so a client sending a request slowly (or half of
 * it) cannot hold a connection for long; idle keep-alive connections close
 * after HTTP_KEEP_ALIVE_TIMEOUT_MS. Call before `listen`.
 */
export function hardenServer(server: http.Server, config: TimeoutConfig, log: Logger): void {
  // Node refuses a headers timeout longer than the request timeout.
  const headersMs = Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS);
  server.headersTimeout = headersMs;
  server.requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  // Both timeouts are enforced by a sweep on this interval (30 s by default, read at listen), which would stretch them
  // by up to that much.
  (server as http.Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(
    25,
    Math.min(1000, Math.floor(headersMs / 4)),
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, log));
}
