import { parseRetryAfter } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  maxAttempts?: number;
  /**
   * The longest wait the client accepts (default 60 s): an answer asking for longer is returned as it is (and becomes
   * an AwpError with `retryAfterMs`), so a caller is never held for minutes without knowing.
   */
  maxDelayMs?: number;
  /** Told before each wait; for logs and progress displays. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  attempt: number;
  status: number;
  delayMs: number;
  method: string;
  url: string;
}

/** Statuses that mean "not now": the service refused without doing anything, and says when to come back. */
const RETRYABLE = new Set([429, 503]);

/**
 * A fetch that sends a request again after a 429 or 503, waiting what `Retry-After` says (without it: 1 s, 2 s, 4 s…).
 * The service writes nothing for a refused request and frees its Idempotency-Key, so the same request, key included,
 * is safe to send again. Each attempt sends a clone, so the body can be sent more than once.
 */
export function retryingFetch(base: typeof fetch, options: RetryOptions = {}): (req: Request) => Promise<Response> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  return async (req: Request) => {
    for (let attempt = 1; ; attempt++) {
      const res = await base(attempt < maxAttempts ? req.clone() : req);
      if (!RETRYABLE.has(res.status) || attempt >= maxAttempts) return res;
      const delayMs = parseRetryAfter(res.headers.get('retry-after')) ?? 1000 * 2 ** (attempt - 1);
      if (delayMs > maxDelayMs) return res;
      await res.body?.cancel();
      options.onRetry?.({ attempt, status: res.status, delayMs, method: req.method, url: req.url });
      await sleep(delayMs, req.signal);
    }
  };
}

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
