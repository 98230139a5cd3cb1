/**
 * SerpAPI (issue 34): `search.web` asks Google Shopping through SerpAPI's official client (`serpapi`'s `getJson` with
 * `engine: google_shopping`); the answer's `shopping_results` are `{ title, link | product_link, source, price,
 * extracted_price, … }`. The client always names serpapi.com:443, so the connection is made by an agent of ours: it
 * connects to the connector's endpoint (https://serpapi.com in production, a local fake in tests) through the pinned,
 * checked lookup of the egress rules, and notes the answer's status line and Retry-After, which the client does not
 * report (it rejects with the body alone). 401/403: the key; 429: throughput or the month's searches used up.
 */
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { getJson } from 'serpapi';
import { isBlockedAddress } from '../../../shared/http/egress.js';
import { pinnedLookup, REFUSED_TARGET } from '../../../shared/http/pinned-dns.js';
import type { ProviderAdapter, ProviderCallContext, ProviderResult } from './adapter.js';
import {
  failed,
  hits,
  httpFailure,
  searchAdapter,
  succeeded,
  text,
  type SearchHit,
  type SearchInput,
} from './search-common.js';

const TIMEOUT_MS = 20_000;

/** Connects wherever the connector's endpoint says, with the egress lookup; remembers the answer's status line. */
class EndpointAgent extends https.Agent {
  status: number | null = null;
  retryAfter: string | undefined;
  readonly sockets_: net.Socket[] = [];
  constructor(
    private readonly target: URL,
    private readonly allowPrivate: boolean,
  ) {
    super({ keepAlive: false });
  }

  override createConnection(): net.Socket {
    const secure = this.target.protocol === 'https:';
    const port = Number(this.target.port || (secure ? 443 : 80));
    const lookup = pinnedLookup(this.allowPrivate) as unknown as net.LookupFunction;
    const host = this.target.hostname;
    const socket = secure
      ? tls.connect({ host, port, lookup, ...(net.isIP(host) ? {} : { servername: host }) })
      : net.connect({ host, port, lookup });
    socket.once('data', (chunk: Buffer) => {
      const head = chunk.toString('latin1', 0, 4096);
      this.status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head)?.[1] ?? 0) || null;
      this.retryAfter = /\r\nretry-after:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim();
    });
    this.sockets_.push(socket);
    return socket;
  }
}

async function search(q: SearchInput, ctx: ProviderCallContext): Promise<ProviderResult> {
  const target = new URL(ctx.connector.endpoint);
  // An address literal never reaches the lookup (the socket connects to it directly): judged here, as egressFetch does.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(literal) && !ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS && isBlockedAddress(literal))
    return failed('egressRefused', `SerpAPI endpoint refused: ${REFUSED_TARGET}`, false);
  const agent = new EndpointAgent(target, ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS);
  const abort = () => agent.sockets_.forEach((s) => s.destroy());
  ctx.signal?.addEventListener('abort', abort, { once: true });
  let body: Record<string, unknown>;
  try {
    body = await getJson({
      engine: 'google_shopping',
      q: q.query,
      num: q.count,
      api_key: ctx.secret!,
      timeout: TIMEOUT_MS,
      requestOptions: { agent, headers: { host: target.host } },
    });
  } catch (err) {
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    // The client rejects with the answer's body (a string) when the status is not 200, else with an Error.
    if (typeof err === 'string' && agent.status) {
      let said = '';
      try {
        said = text((JSON.parse(err) as { error?: unknown }).error);
      } catch {
        said = '';
      }
      return httpFailure('SerpAPI', agent.status, said, agent.retryAfter);
    }
    const name = (err as Error).name;
    return failed(
      name === 'RequestTimeoutError' ? 'timeout' : 'connection',
      name === 'RequestTimeoutError'
        ? `SerpAPI gave no answer within ${TIMEOUT_MS} ms`
        : 'SerpAPI could not be reached',
      true,
    );
  } finally {
    ctx.signal?.removeEventListener('abort', abort);
    agent.destroy();
  }
  // A 200 can still carry an error (a search that failed on Google's side).
  if (typeof body.error === 'string' && !Array.isArray(body.shopping_results))
    return failed('searchFailed', `SerpAPI: ${text(body.error).slice(0, 200)}`, false);
  const list = (Array.isArray(body.shopping_results) ? body.shopping_results : []) as Array<Record<string, unknown>>;
  const found: SearchHit[] = list.map((r) => ({
    url: text(r.link) || text(r.product_link),
    title: text(r.title),
    snippet: text(r.source),
    ...(text(r.price) ? { priceText: text(r.price) } : {}),
  }));
  return succeeded('serpapi', q.query, hits(found, q.count));
}

export const serpApiAdapter: ProviderAdapter = searchAdapter('serpapi', search, 'the API key');
