import { egressFetch } from '../../../shared/http/egress.js';

/** A fetch answer that may carry no body (the Response constructor throws when one of these is given a body). */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * An official SDK's `fetch` (Stripe's fetch HTTP client, Slack's WebClient), done by the egress client: the same
 * pinned resolver, range checks and limits as every outbound call. An answer over `maxBytes` is refused.
 */
export function egressFetchFor(allowPrivate: boolean, limits: { timeoutMs: number; maxBytes: number }) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    const res = await egressFetch(allowPrivate, String(url), {
      method: (init?.method ?? 'GET') as 'GET' | 'POST',
      headers,
      body: typeof init?.body === 'string' ? init.body : undefined,
      signal: init?.signal ?? undefined,
      timeoutMs: limits.timeoutMs,
      maxBytes: limits.maxBytes,
      oversize: 'refuse',
    });
    const body = NULL_BODY.has(res.status) ? null : new Uint8Array(res.body);
    return new Response(body, { status: res.status, headers: res.headers });
  };
}
