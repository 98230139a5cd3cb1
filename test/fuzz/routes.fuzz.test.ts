import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { seedDeliveries } from '../support/ledger.js';
import { seedCatalog } from '../support/runs.js';
import { Gen, HOSTILE_URL_TEXT, seeded } from '../support/fuzz-values.js';

/**
 * Every route of the OpenAPI document, fuzzed: path, query and body built
 * from the route's own schemas, then made hostile (NUL, lone surrogates,
 * huge numbers, deep nesting, wrong types, prototype keys, long strings,
 * unicode), sent with a valid token, a bad one and none. No answer may be a
 * 5xx (an unimplemented route's 501 aside) and every refusal is the error
 * envelope. Bounded and seeded (FUZZ_SEED, FUZZ_CASES to explore further):
 * a failure prints what to send to reproduce it.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const CASES = Number(process.env.FUZZ_CASES ?? 30);
const UNBUILT_CASES = 4;
const PARALLEL = 8;

type Json = Record<string, any>;

interface Sent {
  /** The route as the document names it: `GET /v1/runs/{runId}`. */
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  implemented: boolean;
}

/** Raw bodies no schema describes: broken, non-object and absurdly nested JSON. */
function rawBodies(valid: string): string[] {
  const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  return [
    valid.startsWith('{') && valid.length > 2 ? `{"zz":${deep},${valid.slice(1)}` : deep,
    '['.repeat(100_000) + ']'.repeat(100_000),
    valid.slice(0, Math.max(1, valid.length - 1)),
    'not json',
    'null',
    '"text"',
    '1e999',
    '[]',
    `\ufeff${valid}`,
    '{"a":1,"a":{"b":2}}',
    '{"x":123456789012345678901234567890123}',
    '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
    '{"s":"\\ud800\\u0000"}',
    '{"\\u0000":1}',
    valid.replace(/"([^"\\]{1,40})"/, '"$1\\u0000"'),
    valid.replace(/"([^"\\]{1,40})"/, '"\\udfff$1"'),
  ];
}

function idsFor(pool: Record<string, string>, name: string): string | undefined {
  return pool[name];
}

function buildCase(
  gen: Gen,
  path: string,
  method: string,
  op: Json,
  token: string,
  pool: Record<string, string>,
): Sent {
  const params: Json[] = op.parameters ?? [];
  let url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const real = idsFor(pool, name);
    if (real && gen.chance(0.5)) return encodeURIComponent(real);
    if (gen.chance(0.35)) return gen.pick(HOSTILE_URL_TEXT);
    const schema = params.find((p) => p.in === 'path' && p.name === name)?.schema;
    return encodeURIComponent(String(gen.sample(schema)));
  });
  const query: string[] = [];
  for (const p of params.filter((x) => x.in === 'query')) {
    if (!p.required && gen.chance(0.4)) continue;
    const value = gen.chance(0.25) ? gen.pick(HOSTILE_URL_TEXT) : encodeURIComponent(String(gen.sample(p.schema)));
    query.push(`${p.name}=${value}`);
    if (gen.chance(0.1)) query.push(`${p.name}=${gen.pick(HOSTILE_URL_TEXT)}`);
  }
  if (gen.chance(0.1)) {
    const key = gen.pick(['__proto__', 'constructor', '__proto__[admin]', 'a%00', '%ED%A0%80']);
    query.push(`${key}=${gen.pick(HOSTILE_URL_TEXT)}`);
  }
  if (query.length > 0) url += `?${query.join('&')}`;

  const headers: Record<string, string> = { prefer: 'respond-async' };
  const secured = (op.security ?? []).length > 0;
  const auth = gen.rng();
  if (secured ? auth < 0.8 : auth < 0.15) headers.authorization = `Bearer ${token}`;
  else if (auth < 0.9)
    headers.authorization = gen.pick([
      'Bearer awp_' + 'x'.repeat(43),
      'Bearer ',
      'Basic Zm9vOmJhcg==',
      `Bearer ${token}x`,
      'bearer\t' + token,
    ]);
  if (gen.chance(0.1)) headers['idempotency-key'] = gen.pick(['k-' + gen.int(1e9), ' ', 'x'.repeat(300), '__proto__']);
  if (gen.chance(0.1)) headers['last-event-id'] = gen.pick(['99999999999', '-1', 'abc', '0', '2147483648']);
  if (gen.chance(0.15)) headers.accept = gen.pick(['text/event-stream', 'application/x-ndjson', '*/*', 'text/html']);

  let body: string | undefined;
  if (method.toUpperCase() === 'POST') {
    const schema = op.requestBody?.content?.['application/json']?.schema;
    const valid = JSON.stringify(gen.sample(schema) ?? {});
    const r = gen.rng();
    body =
      r < 0.3 ? valid : r < 0.8 ? (JSON.stringify(gen.mutate(JSON.parse(valid))) ?? '{}') : gen.pick(rawBodies(valid));
    headers['content-type'] = gen.pick([
      'application/json',
      'application/json',
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
    ]);
  }
  return {
    route: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path: url,
    headers,
    body,
    implemented: op['x-awp-implemented'] !== false,
  };
}

/** What to send to see the failure again (the token shown as a placeholder). */
function reproduce(c: Sent, status: number | string, answer: string): string {
  const headers = {
    ...c.headers,
    ...(c.headers.authorization
      ? { authorization: c.headers.authorization.replace(/awp_[\w-]{43}/, 'awp_<token>') }
      : {}),
  };
  const body =
    c.body === undefined
      ? ''
      : `\n    body: ` +
        `${JSON.stringify(c.body.length > 1500 ? `${c.body.slice(0, 1500)}…(${c.body.length} chars)` : c.body)}`;
  return (
    `${status} ${c.method} ${c.path.length > 500 ? `${c.path.slice(0, 500)}…` : c.path}\n    headers: ` +
    `${JSON.stringify(headers)}${body}\n    answer: ${answer.slice(0, 300)}`
  );
}

/** Sends one case; returns a failure description or null. Streams are judged by their status and left unread. */
async function send(c: Sent, seen: Map<string, number>): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch(`${harness.url}${c.path}`, {
      method: c.method,
      headers: c.headers,
      body: c.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(20_000),
    });
  } catch (err) {
    return reproduce(c, 'no answer', String((err as Error).cause ?? err));
  }
  const key = `${c.route} ${res.status}`;
  seen.set(key, (seen.get(key) ?? 0) + 1);
  const type = res.headers.get('content-type') ?? '';
  let text = `<${type}>`;
  if (/json/.test(type)) text = await res.text();
  else await res.body?.cancel();
  const serverError = res.status >= 500 && !(res.status === 501 && !c.implemented);
  if (serverError) return reproduce(c, res.status, text);
  if (res.status >= 400) {
    let env: Json | null = null;
    try {
      env = JSON.parse(text) as Json;
    } catch {
      // not JSON: reported below
    }
    if (!env || env.ok !== false || typeof env.error !== 'string' || typeof env.requestId !== 'string')
      return reproduce(c, `${res.status} without the error envelope`, text);
  }
  return null;
}

async function inParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

describe('fuzz: every route of the OpenAPI document, hostile input, no 5xx', () => {
  let doc: Json;
  let token: string;
  const pool: Record<string, string> = { schemaId: 'HandshakeRequest' };

  before(async function () {
    this.timeout(60_000);
    doc = (await harness.call('GET', '/openapi.json')).body;
    const a = await harness.account();
    token = a.token;
    await seedCatalog(a.accountId);
    // Real records of this account, so hostile input also reaches the handlers behind the lookups.
    const run = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find an espresso machine under $250', domainRoute: ['hunt'] },
    });
    pool.runId = run.body.runId;
    if (run.body.proofCard?.cardId) pool.cardId = run.body.proofCard.cardId;
    const spare = await harness.call('POST', '/v1/tokens', { token, body: { name: 'spare' } });
    pool.tokenId = spare.body.tokenInfo.tokenId; // never the fuzz's own token, which a revoke would end
    pool.taskId = (
      await harness.call('POST', '/v1/tasks', { token, body: { domain: 'hunt', inData: {} } })
    ).body.task.taskId;
    const seeded = await seedDeliveries(a.accountId, 1);
    Object.assign(pool, { subId: seeded.subscriptionId, eventId: seeded.eventId, deliveryId: seeded.ids[0]! });
    pool.templateId = (await harness.call('GET', '/v1/workflows/templates')).body.templates[0].templateId;
  });

  it(
    `sends ${CASES} cases to each implemented route and ${UNBUILT_CASES} to each unbuilt one (seed ${SEED}), ` +
      `and none answers 5xx`,
    async function () {
      this.timeout(120_000);
      const gen = new Gen(seeded(SEED), doc.components.schemas);
      const cases: Sent[] = [];
      for (const [path, ops] of Object.entries(doc.paths as Json)) {
        for (const [method, op] of Object.entries(ops as Json)) {
          const n = (op as Json)['x-awp-implemented'] === false ? UNBUILT_CASES : CASES;
          for (let i = 0; i < n; i++) cases.push(buildCase(gen, path, method, op as Json, token, pool));
        }
      }
      const failures: string[] = [];
      const seen = new Map<string, number>();
      await inParallel(cases, PARALLEL, async (c) => {
        const failure = await send(c, seen);
        if (failure) failures.push(failure);
      });
      // FUZZ_VERBOSE=1 shows which answers the cases got, to see how deep they reach.
      if (process.env.FUZZ_VERBOSE)
        console.log(
          [...seen]
            .sort()
            .map(([k, n]) => `${n}\t${k}`)
            .join('\n'),
        );
      assert.ok(cases.length > 1500, `only ${cases.length} cases`);
      if (failures.length > 0)
        assert.fail(
          `${failures.length} of ${cases.length} requests failed (seed ${SEED}):\n  ` +
            `${failures.slice(0, 15).join('\n  ')}`,
        );
    },
  );
});
