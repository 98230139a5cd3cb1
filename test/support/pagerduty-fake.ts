import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small stateful PagerDuty Events API v2 (`POST /v2/enqueue`) for the flows: PagerDuty publishes no OpenAPI
 * document for Events v2 (test/fixtures/providers/README.md), so this fake is what the adapter is tested against. It
 * checks the routing key (an unknown one is 400 `invalid event`, as PagerDuty answers it), the event's required
 * fields, and keeps PagerDuty's incident per `dedup_key`: a trigger opens one unless it is open (a repeated trigger
 * adds nothing), acknowledge and resolve move it. 202 `{status: "success", dedup_key}`; a 429 with Retry-After or a
 * 500 on demand.
 */
export interface PdEvent {
  routing_key: string;
  event_action: string;
  dedup_key?: string;
  payload?: { summary?: string; source?: string; severity?: string; [k: string]: unknown };
}

export async function startPagerDutyFake(opts: { routingKey: string }) {
  const events: PdEvent[] = [];
  const incidents = new Map<string, { status: 'triggered' | 'acknowledged' | 'resolved'; triggers: number }>();
  const failures: Array<{ status: 429; retryAfter: number } | { status: 500 }> = [];
  let opened = 0;

  function enqueue(e: PdEvent): [number, Record<string, unknown>] {
    const errors: string[] = [];
    if (e.routing_key !== opts.routingKey) errors.push("'routing_key' is invalid");
    if (!['trigger', 'acknowledge', 'resolve'].includes(e.event_action)) errors.push("'event_action' is invalid");
    if (e.event_action !== 'trigger' && !e.dedup_key) errors.push("'dedup_key' is missing");
    if (e.event_action === 'trigger')
      for (const f of ['summary', 'source', 'severity'] as const)
        if (!e.payload?.[f]) errors.push(`'payload.${f}' is missing or blank`);
    if (errors.length) return [400, { status: 'invalid event', message: 'Event object is invalid', errors }];
    events.push(e);
    const key = e.dedup_key ?? `generated-${events.length}`;
    const open = incidents.get(key);
    if (e.event_action === 'trigger') {
      if (!open || open.status === 'resolved') {
        incidents.set(key, { status: 'triggered', triggers: 1 });
        opened++;
      } else open.triggers++;
    } else if (open && open.status !== 'resolved') {
      open.status = e.event_action === 'resolve' ? 'resolved' : 'acknowledged';
    }
    return [202, { status: 'success', message: 'Event processed', dedup_key: key }];
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v2/enqueue')
        return send(404, { status: 'not found', message: 'Not Found' });
      const failure = failures.shift();
      if (failure?.status === 429)
        return send(
          429,
          { status: 'throttled', message: 'Too many requests' },
          {
            'retry-after': String(failure.retryAfter),
          },
        );
      if (failure) return send(500, { status: 'error', message: 'Internal error' });
      let body: PdEvent;
      try {
        body = JSON.parse(raw) as PdEvent;
      } catch {
        return send(400, { status: 'invalid event', message: 'Event object is invalid', errors: ['Malformed JSON'] });
      }
      send(...enqueue(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events,
    incidents,
    /** PagerDuty incidents opened (a trigger for a dedup key already open counts once). */
    opened: () => opened,
    /** The next requests fail so, in order. */
    failNext: (...f: Array<{ status: 429; retryAfter: number } | { status: 500 }>) => void failures.push(...f),
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type PagerDutyFake = Awaited<ReturnType<typeof startPagerDutyFake>>;
