import net from 'node:net';
import type { Agent } from 'undici';
import { AppError } from '../errors.js';
import { onFirstUse } from '../on-first-use.js';
import { classifyAddress, normalizeHost, refusedHost } from './address-ranges.js';
import { addressAllowed, EgressRefused, pinnedLookup, REFUSED_TARGET, type EgressPin } from './pinned-dns.js';
import { currentTraceparent, failSpan, inSpan, SpanKind, tracingOn } from '../telemetry/spans.js';

export { EgressRefused, REFUSED_TARGET, type EgressPin } from './pinned-dns.js';

/**
 * The one guarded outbound HTTP client: every webhook, connector or page read
 * goes through it. Time and size limits, no redirects, and no special-purpose
 * target (address-ranges.ts: every block of IANA's registries, the IPv6 forms
 * that embed one, local names). An address literal is checked before the
 * call; a name is resolved once at connect time, each address checked, and
 * the socket connects to a checked address (pinned-dns.ts), so DNS rebinding
 * cannot slip through. AWP_ALLOW_PRIVATE_EGRESS lifts the range checks for
 * local development.
 */

/** True when an outbound call must not reach `address` (an IP literal; anything else is refused too). */
export function isBlockedAddress(address: string): boolean {
  return !classifyAddress(address).allowed;
}

const agents = new Map<boolean, Agent>();

type Undici = typeof import('undici');
/** undici (about 20 MB) loads on the first outbound call: a process that makes none never holds it. */
const loadUndici = onFirstUse('undici', () => import('undici')).load;

/** TLS material of a server with its own CA (a Kubernetes API server), and a client certificate when it asks one. */
export interface EgressTls {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
}

function pinnedAgent(u: Undici, allowPrivate: boolean, pin: EgressPin = {}, tls: EgressTls = {}): Agent {
  return new u.Agent({ connect: { ...tls, lookup: pinnedLookup(allowPrivate, pin) }, keepAliveTimeout: 10_000 });
}

/** The shared agent per setting: its pooled connections were each opened to an address checked when they were made. */
function agent(u: Undici, allowPrivate: boolean): Agent {
  let a = agents.get(allowPrivate);
  if (!a) agents.set(allowPrivate, (a = pinnedAgent(u, allowPrivate)));
  return a;
}

/**
 * Why a call failed when the caller may want to tell it apart: its own time
 * limit ran out (`timeout`, code `unavailable`: a retry may succeed) or the
 * body was over `maxBytes` with `oversize: 'refuse'` (`tooLarge`, code
 * `policyViolation`: permanent). Messages name the host only, never the full
 * URL, whose query string may carry credentials.
 */
export class EgressError extends AppError {
  constructor(
    readonly reason: 'timeout' | 'tooLarge',
    message: string,
  ) {
    super(reason === 'timeout' ? 'unavailable' : 'policyViolation', message);
    this.name = 'EgressError';
  }
}

export interface EgressOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /**
   * The caller's signal (a step's `input.signal`). Aborting it cancels the
   * request wherever it is (connecting, waiting for headers, reading the
   * body; the connection is closed) and the call rejects with the signal's
   * own `reason`, so a step's cancel or timeout error surfaces unchanged.
   * An already aborted signal rejects before anything is sent.
   */
  signal?: AbortSignal;
  /**
   * Time limit of the whole call in ms (connect, headers and the full body),
   * default 10 000. On expiry: `EgressError` with reason `timeout`. Runs
   * alongside `signal`: whichever fires first ends the call.
   */
  timeoutMs?: number;
  /** Largest body accepted, in bytes (default 64 KiB). The rest is never read: the connection is closed. */
  maxBytes?: number;
  /**
   * A body over `maxBytes`: `truncate` (default) resolves with its first
   * `maxBytes` bytes and `truncated: true` (webhook excerpts want this);
   * `refuse` rejects with `EgressError` reason `tooLarge` (callers that need
   * the whole document). A declared Content-Length over the limit is refused
   * before any of the body is read.
   */
  oversize?: 'truncate' | 'refuse';
  /** Resolver and extra refusals (pinned-dns.ts); the default is the system resolver and the ranges alone. */
  pin?: EgressPin;
  /** The server's own CA (and a client certificate): the call gets an agent of its own, closed after it. */
  tls?: EgressTls;
  /**
   * Send the call's W3C `traceparent` header while tracing runs (webhooks: the receiver may join the trace). Off
   * by default: a provider's API has no use for the service's trace ids.
   */
  propagateTrace?: boolean;
}

export interface EgressResponse {
  status: number;
  headers: Record<string, string>;
  /** At most `maxBytes` of the body, as UTF-8 text. */
  text: string;
  /** The same bytes undecoded, for callers that hash them, sniff their charset or read binary (images). */
  body: Buffer;
  /** True when the body was longer than `maxBytes` and `text` holds only its start. */
  truncated: boolean;
}

/** Checks a URL before it is stored (scheme, literal addresses); connect-time checks still apply later. */
export function checkEgressUrl(raw: string, opts: { allowPrivate: boolean; requireHttps: boolean }): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressRefused('endpoint is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new EgressRefused('endpoint must use https');
  if (opts.requireHttps && url.protocol !== 'https:' && !opts.allowPrivate)
    throw new EgressRefused('endpoint must use https');
  if (url.username || url.password) throw new EgressRefused('endpoint must not carry credentials');
  // Only what the caller wrote is judged here (no DNS lookup, which would tell them what internal names resolve to).
  if (!opts.allowPrivate && refusedHost(url.hostname))
    throw new EgressRefused('endpoint points at a private, loopback, local or special-purpose address');
  return url;
}

function hostnameOf(url: string): string {
  try {
    return normalizeHost(new URL(url).hostname);
  } catch {
    return '';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'endpoint';
  }
}

const UNDICI_TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * One outbound HTTP call through the guarded agent. Never follows redirects
 * (a 3xx is returned as is). `signal`, `timeoutMs` and `maxBytes` all apply
 * to the same call; see EgressOptions for what each one does when it trips.
 * While tracing runs, the call is a client span named by method and host (its
 * attributes: method, host, port, status; never the path or query, which may
 * carry a webhook's secret or a credential).
 */
export function egressFetch(allowPrivate: boolean, url: string, opts: EgressOptions = {}): Promise<EgressResponse> {
  if (!tracingOn()) return guardedFetch(allowPrivate, url, opts);
  const method = opts.method ?? 'GET';
  let target: URL | null = null;
  try {
    target = new URL(url);
  } catch {
    // guardedFetch refuses it
  }
  const port = target ? Number(target.port || (target.protocol === 'https:' ? 443 : 80)) : undefined;
  const attributes = {
    'http.request.method': method,
    ...(target ? { 'server.address': target.hostname, 'server.port': port } : {}),
  };
  const name = `${method} ${target?.hostname ?? 'endpoint'}`;
  return inSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const traceparent = opts.propagateTrace ? currentTraceparent() : undefined;
    const res = await guardedFetch(
      allowPrivate,
      url,
      traceparent ? { ...opts, headers: { ...opts.headers, traceparent } } : opts,
    );
    span?.setAttribute('http.response.status_code', res.status);
    if (span && res.status >= 400) failSpan(span, null, String(res.status));
    return res;
  });
}

async function guardedFetch(allowPrivate: boolean, url: string, opts: EgressOptions): Promise<EgressResponse> {
  const maxBytes = opts.maxBytes ?? 64 * 1024;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const host = hostOf(url);
  // Address literals never reach the connect-time lookup (the socket connects to them directly): judged here.
  const name = hostnameOf(url);
  const refused = net.isIP(name) ? !addressAllowed(name, allowPrivate, opts.pin) : !allowPrivate && refusedHost(name);
  if (refused) throw new EgressRefused(REFUSED_TARGET);
  const tooLarge = () => new EgressError('tooLarge', `${host} answered with a body over the ${maxBytes}-byte limit`);
  const u = await loadUndici();
  opts.signal?.throwIfAborted();
  // One controller carries both the caller's abort and our own deadline, so undici tears down the request either way.
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(opts.signal!.reason);
  opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
  // A caller's own resolver or deny list gets an agent of its own, closed after the call.
  const ownAgent = Boolean(opts.pin || opts.tls);
  const dispatcher = ownAgent ? pinnedAgent(u, allowPrivate, opts.pin, opts.tls) : agent(u, allowPrivate);
  const timer = setTimeout(
    () => controller.abort(new EgressError('timeout', `${host} gave no complete answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  try {
    const res = await u.request(url, {
      method: opts.method ?? 'GET',
      headers: opts.headers,
      body: opts.body,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: controller.signal,
    });
    const declared = Number(res.headers['content-length']);
    if (opts.oversize === 'refuse' && declared > maxBytes) {
      res.body.destroy();
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      if (size + buf.length > maxBytes) {
        res.body.destroy();
        if (opts.oversize === 'refuse') throw tooLarge();
        chunks.push(buf.subarray(0, maxBytes - size));
        truncated = true;
        break;
      }
      chunks.push(buf);
      size += buf.length;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    const body = Buffer.concat(chunks);
    return { status: res.statusCode, headers, text: body.toString('utf8'), body, truncated };
  } catch (err) {
    // undici rejects with its own wrapper or the reason; the reason we aborted with is the one that explains it.
    if (controller.signal.aborted) throw controller.signal.reason;
    if (UNDICI_TIMEOUTS.has((err as { code?: string }).code ?? ''))
      throw new EgressError('timeout', `${host} gave no complete answer within ${timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCallerAbort);
    if (ownAgent) void dispatcher.destroy().catch(() => undefined);
  }
}

/**
 * Why an outbound call got no answer, in words safe to store and show the
 * caller. The service's own errors carry messages written for the caller (a
 * refused target reads the same whatever refused it: REFUSED_TARGET);
 * anything else is reduced to its error code, since socket and TLS messages
 * name the addresses a host resolved to, which is not the caller's to learn.
 */
export function egressFailureReason(err: unknown): string {
  if (err instanceof AppError) return err.message.slice(0, 500);
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e.code ?? e.cause?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code)
    ? `could not reach the endpoint (${code})`
    : 'could not reach the endpoint';
}
