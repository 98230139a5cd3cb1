import type { Readable } from 'node:stream';
import { Reply, type AnyRoute } from '../../shared/http/route-spec.js';
import { readAs } from '../../shared/validation.js';

/**
 * The contract checked by every test that calls a route: each JSON answer of a route that declares its responses
 * must match the schema declared for its status (the one /openapi.json publishes), and a 2xx status it answers must
 * be declared. The handlers are wrapped once, on load, over HTTP, MCP and A2A alike; what does not match is
 * collected, and the root hook fails the run naming each route, status and field (test/setup.ts).
 */
const found = new Map<string, string>();

function record(route: AnyRoute, out: unknown): void {
  const status = out instanceof Reply ? out.status : 200;
  const body = out instanceof Reply ? out.body : out;
  // Streams (NDJSON, SSE) and empty answers have no JSON body to check.
  if (!body || typeof body !== 'object' || typeof (body as Readable).pipe === 'function') return;
  const where = `${route.method} ${route.path} ${status}`;
  const schema = route.response![status];
  if (!schema) {
    if (status < 300) found.set(where, 'answers a status its route does not declare');
    return;
  }
  try {
    readAs(schema, body, 'the answer'); // as stored data is read: no defaults applied, nothing changed
  } catch (err) {
    if (!found.has(where)) found.set(where, (err as Error).message);
  }
}

export function checkAnswers(routes: AnyRoute[]): void {
  for (const route of routes) {
    const handler = route.handler;
    if (!handler || !route.response) continue;
    route.handler = async (input, deps) => {
      const out: unknown = await handler(input, deps);
      record(route, out);
      return out;
    };
  }
}

/** What the run found so far: one line per route and status. */
export function answersOffContract(): string[] {
  return [...found].map(([where, what]) => `${where}: ${what}`);
}
