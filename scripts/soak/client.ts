import type { RequestRecord } from './logic.js';

/**
 * The load's HTTP client: spreads requests over the web processes round
 * robin (as a load balancer would) and records every request's status,
 * latency and whether a 5xx carried Retry-After. A request that gets no
 * answer (refused, reset, timed out) is recorded with status null; one
 * refused before it was sent is tried once on the next web process, which a
 * balancer does too.
 */
export interface Answer {
  status: number | null;
  body: any;
  text: string;
  headers: Headers | null;
}

export class Client {
  readonly records: RequestRecord[] = [];
  private next = 0;

  constructor(
    private readonly webs: () => string[],
    private readonly token: string,
    private readonly now: () => number,
  ) {}

  async call(
    kind: string,
    method: string,
    path: string,
    opts: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number; token?: string | null } = {},
  ): Promise<Answer> {
    const webs = this.webs();
    for (let attempt = 0; ; attempt++) {
      const base = webs[this.next++ % webs.length]!;
      const t = this.now();
      const started = performance.now();
      const headers: Record<string, string> = { ...opts.headers };
      const token = opts.token === undefined ? this.token : opts.token;
      if (token) headers.authorization = `Bearer ${token}`;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      try {
        const res = await fetch(`${base}${path}`, {
          method,
          headers,
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
        });
        const text = await res.text();
        this.records.push({
          t,
          kind,
          status: res.status,
          ms: performance.now() - started,
          retryAfter: res.headers.has('retry-after'),
        });
        let body: any = null;
        try {
          body = JSON.parse(text);
        } catch {
          // NDJSON, SSE or an empty answer: the caller reads `text`.
        }
        return { status: res.status, body, text, headers: res.headers };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        if (cause === 'ECONNREFUSED' && attempt === 0 && webs.length > 1) continue;
        this.records.push({ t, kind, status: null, ms: performance.now() - started, retryAfter: false, error: cause });
        return { status: null, body: null, text: String(err), headers: null };
      }
    }
  }
}

/** The lines of an NDJSON answer, parsed; lines that are not JSON are skipped. */
export function ndjson(text: string): any[] {
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** The `data:` payloads of an SSE answer, parsed. */
export function sse(text: string): any[] {
  return ndjson(
    text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5))
      .join('\n'),
  );
}
