import type { Config } from '../../shared/config.js';
import { AppError, policyViolation } from '../../shared/errors.js';
import { EgressError, EgressRefused, egressFetch } from '../../shared/http/egress.js';

/**
 * The chain providers behind POST /v1/tools/chainTrace, each read in its
 * own format: an EVM JSON-RPC endpoint (eth_getTransactionByHash,
 * eth_getTransactionReceipt, eth_getBlockByNumber, eth_call for an ERC-20's
 * decimals and symbol, eth_getLogs for ERC-20 Transfer events) and an
 * Esplora-compatible Bitcoin REST API (/tx/:txid, /tx/:txid/outspend/:vout,
 * /address/:address/txs). Unreachable or malformed: 503; unknown tx: 404.
 */

const MAX_BYTES = 4 * 1024 * 1024;
const unavailable = (message: string) => new AppError('unavailable', message);

export interface ProviderTarget {
  baseUrl: string;
  allowPrivate: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export function targetOf(config: Config, url: string, signal?: AbortSignal): ProviderTarget {
  return {
    baseUrl: url.replace(/\/$/, ''),
    allowPrivate: config.AWP_ALLOW_PRIVATE_EGRESS,
    timeoutMs: config.CHAIN_TRACE_TIMEOUT_MS,
    signal,
  };
}

async function call(
  t: ProviderTarget,
  name: string,
  url: string,
  init: { method: 'GET' | 'POST'; body?: string },
): Promise<{ status: number; text: string }> {
  try {
    const res = await egressFetch(t.allowPrivate, url, {
      ...init,
      headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
      signal: t.signal,
      timeoutMs: t.timeoutMs,
      maxBytes: MAX_BYTES,
      oversize: 'refuse',
    });
    if (res.status === 429 || res.status >= 500)
      throw unavailable(`the ${name} provider is not answering now (HTTP ${res.status})`);
    return { status: res.status, text: res.text };
  } catch (err) {
    if (t.signal?.aborted) throw t.signal.reason;
    if (err instanceof AppError && err.code === 'unavailable' && !(err instanceof EgressError)) throw err;
    if (err instanceof EgressError && err.reason === 'timeout')
      throw unavailable(`the ${name} provider did not answer within ${t.timeoutMs} ms`);
    if (err instanceof EgressRefused)
      throw unavailable(
        `the ${name} provider's address is refused by the egress guard (a local provider needs ` +
          `AWP_ALLOW_PRIVATE_EGRESS)`,
      );
    throw unavailable(`could not reach the ${name} provider`);
  }
}

function json(name: string, text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    throw unavailable(`the ${name} provider answered with something that is not JSON`);
  }
}

/** One JSON-RPC 2.0 call; a JSON-RPC error object is the provider refusing the request (422). */
export async function rpc(t: ProviderTarget, method: string, params: unknown[]): Promise<any> {
  const res = await call(t, 'EVM JSON-RPC', t.baseUrl, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = json('EVM JSON-RPC', res.text);
  if (body?.error)
    throw policyViolation(
      `the EVM JSON-RPC provider refused ${method}: ${String(body.error.message ?? body.error.code).slice(0, 200)}`,
    );
  if (res.status !== 200 || !body || !('result' in body))
    throw unavailable(`the EVM JSON-RPC provider gave no result for ${method} (HTTP ${res.status})`);
  return body.result;
}

/** One Esplora GET; `null` for a 404 (an unknown tx or address). */
export async function esplora(t: ProviderTarget, path: string): Promise<any> {
  const res = await call(t, 'Esplora', `${t.baseUrl}${path}`, { method: 'GET' });
  if (res.status === 404) return null;
  if (res.status === 400)
    throw policyViolation(
      `the Esplora provider refused ${path.split('/').slice(0, 2).join('/')}: ${res.text.slice(0, 200)}`,
    );
  if (res.status !== 200) throw unavailable(`the Esplora provider answered HTTP ${res.status}`);
  return json('Esplora', res.text);
}
