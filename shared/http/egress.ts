import dns from 'node:dns';
import net from 'node:net';
import { Agent, request } from 'undici';
import { AppError } from '../errors.js';

/**
 * The one guarded outbound HTTP client: every webhook, connector or page read
 * goes through it. Time and size limits, no redirects, and addresses that are
 * private, loopback, link-local, CGNAT, multicast or reserved are refused
 * after DNS resolution, at connect time (so DNS rebinding cannot slip
 * through), unless AWP_ALLOW_PRIVATE_EGRESS is set for local development.
 */
const BLOCKED = new net.BlockList();
for (const [net4, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  BLOCKED.addSubnet(net4, prefix, 'ipv4');
}
for (const [net6, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) BLOCKED.addSubnet(net6, prefix, 'ipv6');

export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class EgressRefused extends AppError {
  constructor(message: string) {
    super('invalidPayload', message);
  }
}

const agents = new Map<boolean, Agent>();

function agent(allowPrivate: boolean): Agent {
  let a = agents.get(allowPrivate);
  if (!a) {
    a = new Agent({
      connect: {
        lookup(hostname, options, callback) {
          dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
            if (err) return callback(err, '', 0);
            const list = addresses as dns.LookupAddress[];
            const allowed = allowPrivate ? list : list.filter((x) => !isBlockedAddress(x.address));
            if (allowed.length === 0) return callback(new EgressRefused(`${hostname} resolves only to private or reserved addresses`), '', 0);
            if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, allowed);
            callback(null, allowed[0]!.address, allowed[0]!.family);
          });
        },
      },
      keepAliveTimeout: 10_000,
    });
    agents.set(allowPrivate, a);
  }
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
  constructor(readonly reason: 'timeout' | 'tooLarge', message: string) {
    super(reason === 'timeout' ? 'unavailable' : 'policyViolation', message);
    this.name = 'EgressError';
  }
}

export interface EgressOptions {
  method?: 'GET' | 'POST' | 'PUT';
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
}

export interface EgressResponse {
  status: number;
  headers: Record<string, string>;
  /** At most `maxBytes` of the body, as UTF-8 text. */
  text: string;
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
  if (opts.requireHttps && url.protocol !== 'https:' && !opts.allowPrivate) throw new EgressRefused('endpoint must use https');
  if (url.username || url.password) throw new EgressRefused('endpoint must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (net.isIP(host) && isBlockedAddress(host)))) {
    throw new EgressRefused('endpoint points at a private, loopback or reserved address');
  }
  return url;
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
 */
export async function egressFetch(allowPrivate: boolean, url: string, opts: EgressOptions = {}): Promise<EgressResponse> {
  const maxBytes = opts.maxBytes ?? 64 * 1024;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const host = hostOf(url);
  const tooLarge = () => new EgressError('tooLarge', `${host} answered with a body over the ${maxBytes}-byte limit`);
  opts.signal?.throwIfAborted();
  // One controller carries both the caller's abort and our own deadline, so undici tears down the request either way.
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(opts.signal!.reason);
  opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new EgressError('timeout', `${host} gave no complete answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    const res = await request(url, {
      method: opts.method ?? 'GET',
      headers: opts.headers,
      body: opts.body,
      dispatcher: agent(allowPrivate),
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
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: res.statusCode, headers, text: Buffer.concat(chunks).toString('utf8'), truncated };
  } catch (err) {
    // undici rejects with its own wrapper or the reason; the reason we aborted with is the one that explains it.
    if (controller.signal.aborted) throw controller.signal.reason;
    if (UNDICI_TIMEOUTS.has((err as { code?: string }).code ?? '')) throw new EgressError('timeout', `${host} gave no complete answer within ${timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCallerAbort);
  }
}
