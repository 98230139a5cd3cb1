import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROVIDER_ADAPTERS, type ProviderAdapter, type ProviderKind } from '../../jobs/bridge/providers/index.js';

/** A call the local provider got: the headers and the JSON body, as sent. */
export interface ProviderHit {
  idempotencyKey: string;
  authorization: string;
  body: { capability: string; input: Record<string, any> };
}

/** How the local provider answers one call: an HTTP status, a JSON body, a Retry-After in seconds. */
export interface ProviderAnswer {
  status: number;
  body: Record<string, unknown>;
  retryAfterSec?: number;
}

/**
 * A tiny provider with an HTTP API of its own, and a real adapter object for it that tests register in
 * PROVIDER_ADAPTERS: the adapter calls the provider over HTTP with the credential it is given and the action's
 * idempotency key, and maps its answers as the contract says (200 `sent` succeeded, 200 `queued` pending, 429/5xx
 * transient with Retry-After, any other status a permanent failure with the provider's code). `answer` picks each
 * answer from the call (the nth for its idempotency key).
 */
export async function startTestProvider(kind: ProviderKind, answer: (hit: ProviderHit, nth: number) => ProviderAnswer) {
  const hits: ProviderHit[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const hit = {
        idempotencyKey: String(req.headers['idempotency-key'] ?? ''),
        authorization: String(req.headers.authorization ?? ''),
        body: JSON.parse(raw),
      };
      hits.push(hit);
      const a = answer(hit, hits.filter((h) => h.idempotencyKey === hit.idempotencyKey).length);
      res.writeHead(a.status, {
        'content-type': 'application/json',
        ...(a.retryAfterSec !== undefined ? { 'retry-after': String(a.retryAfterSec) } : {}),
      });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;

  const adapter: ProviderAdapter = {
    kind,
    capabilities: ['msg.chat', 'msg.sms', 'msg.email'],
    async call(capability, input, ctx) {
      const res = await fetch(ctx.connector.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': ctx.idempotencyKey,
          ...(ctx.secret ? { authorization: `Bearer ${ctx.secret}` } : {}),
        },
        body: JSON.stringify({ capability, input }),
        signal: ctx.signal,
      });
      const body = (await res.json()) as Record<string, any>;
      if (res.status === 200)
        return {
          status: body.status === 'queued' ? 'pending' : 'succeeded',
          providerRef: body.id ?? null,
          answer: body,
        };
      const retryAfter = res.headers.get('retry-after');
      return {
        status: 'failed',
        providerRef: null,
        answer: body,
        error: {
          code: String(body.code ?? res.status),
          message: String(body.message ?? `the provider answered ${res.status}`),
          transient: res.status === 429 || res.status >= 500,
          ...(retryAfter ? { retryAfterMs: Number(retryAfter) * 1000 } : {}),
        },
      };
    },
  };
  const before = PROVIDER_ADAPTERS[kind];
  PROVIDER_ADAPTERS[kind] = adapter;
  return {
    url,
    hits,
    adapter,
    stop: async () => {
      if (before) PROVIDER_ADAPTERS[kind] = before;
      else delete PROVIDER_ADAPTERS[kind];
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
