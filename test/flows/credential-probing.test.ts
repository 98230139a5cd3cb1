import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

/**
 * Tenant B probing tenant A's vault over MCP (the official client), against
 * an API and workers in processes of their own logging at debug level: every
 * tool that takes a secret reference or a connector answers B the same for
 * A's `cred:NAME` as for a name nobody has (apart from ids, times and the
 * name itself), and A's value is in none of B's answers, none of the events
 * or webhooks B receives, no request A's endpoint never asked for, and no
 * log line.
 */

const NAMES = /(cred:)?\b(a-secret|nobody-has)\b|\b(steal|missing)\b/g;
/** One answer with what may legitimately differ between the two probes made equal. */
const normal = (v: unknown) =>
  JSON.stringify(v)
    .replace(NAMES, '<name>')
    .replace(/\b[a-z]{2,8}_[A-Za-z0-9_-]{10,}\b/g, '<id>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');

describe('cross-tenant credential probing over MCP, in events, webhooks and logs', function () {
  this.timeout(120_000);
  const value = `a-secret-${randomBytes(16).toString('hex')}`;
  const hits: string[] = [];
  let endpoint: http.Server;
  let url: string;

  before(async () => {
    endpoint = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hits.push(JSON.stringify({ url: req.url, headers: req.headers, body }));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => endpoint.close(resolve)));

  it(
    "A's cred:NAME reads to B exactly as a name nobody " + "has, and A's value appears nowhere B or a log can see",
    async () => {
      const a = await harness.account();
      const b = await harness.account();
      const stored = await harness.call('POST', '/v1/bridge/credentials', {
        token: a.token,
        body: { name: 'a-secret', kind: 'bearer', value },
      });
      assert.equal(stored.status, 201, stored.text);
      const rx = await startReceiver(() => ['whsec_' + Buffer.from('b-probe-secret-0123456789').toString('base64')]);
      const prefix = `{awp-probe-${randomBytes(3).toString('hex')}}`;
      const env = {
        DATABASE_URL: harness.config.DATABASE_URL!,
        REDIS_URL: harness.config.REDIS_URL!,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'debug',
        RATE_LIMIT_PER_MINUTE: '10000',
        AWP_ALLOW_PRIVATE_EGRESS: '1',
        WEBHOOK_RETRY_SCHEDULE_MS: '100,200',
        MAP_PROVIDER: 'google',
        MAP_PROVIDER_URL: `${url}/maps`,
      }; // tools.map resolves its key only with a provider
      const api = spawnEntry('api/server.ts', { ...env, PORT: '0', HOST: '127.0.0.1' });
      const worker = spawnEntry('workers/domains.ts', env);
      const delivery = spawnEntry('workers/delivery.ts', env);
      const answers: unknown[] = [];
      let client: Client | undefined;
      try {
        await waitForOutput(api, (o) => o.includes('"msg":"started"'), 60_000);
        await waitForOutput(worker, (o) => o.includes('domain workers started'), 60_000);
        await waitForOutput(delivery, (o) => o.includes('"msg":"started"'), 60_000);
        const base = /"url":"(http:[^"]+)"/.exec(api.output())![1]!;
        const sub = await harness.call(
          'POST',
          '/v1/event-subscriptions',
          {
            token: b.token,
            body: {
              endpoint: rx.url,
              events: ['*'],
              secret: 'whsec_' + Buffer.from('b-probe-secret-0123456789').toString('base64'),
            },
          },
          base,
        );
        assert.equal(sub.status, 201, sub.text);
        for (const [id, ref] of [
          ['steal', 'cred:a-secret'],
          ['missing', 'cred:nobody-has'],
        ]) {
          const made = await harness.call(
            'POST',
            '/v1/bridge/connectors',
            {
              token: b.token,
              body: {
                connectorId: id,
                kind: 'custom',
                caps: ['crm.update'],
                endpoint: `${url}/${id}`,
                credential: { type: 'bearer', tokenRef: ref },
              },
            },
            base,
          );
          assert.equal(made.status, 201, made.text);
        }
        client = new Client({ name: 'awp-probe', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
            requestInit: { headers: { Authorization: `Bearer ${b.token}` } },
          }),
        );
        const names = (await client.listTools()).tools.map((t) => t.name);
        const probes: Array<[string, (ref: string, connector: string) => Record<string, unknown>]> = [
          ['bridge.preflight', (_ref, connectorId) => ({ connectorId, action: 'crm.update' })],
          ['bridge.createAction', (_ref, connectorId) => ({ connectorId, capability: 'crm.update', input: { n: 1 } })],
          ['security.secretsCheck', (ref) => ({ refs: [{ name: 'probe', ref }] })],
          ['tools.map', (ref) => ({ query: 'coffee', center: { lat: 52.2, lon: 21 }, placesProviderApiKey: ref })],
        ];
        for (const [tool, args] of probes) {
          assert.ok(names.includes(tool), `${tool} is an MCP tool`);
          const steal = await client.callTool({ name: tool, arguments: args('cred:a-secret', 'steal') });
          const missing = await client.callTool({ name: tool, arguments: args('cred:nobody-has', 'missing') });
          answers.push(steal, missing);
          assert.equal(normal(steal), normal(missing), `${tool}: A's credential reads as a name nobody has`);
          assert.match(JSON.stringify(steal), /a-secret/, `${tool} answered about the reference`);
        }
        const events = await harness.call('GET', '/v1/events?limit=200', { token: b.token }, base);
        answers.push(events.body);
        await new Promise((r) => setTimeout(r, 500)); // deliveries B is owed, if any, go out
        answers.push(rx.received.map((r) => r.body));
      } finally {
        await client?.close().catch(() => undefined);
        for (const child of [api, worker, delivery]) assert.equal(await stopWith(child, 'SIGTERM'), 0, child.output());
        await rx.stop();
      }
      const logged = `${api.output()}\n${worker.output()}\n${delivery.output()}`;
      assert.ok(logged.includes('"level":20') || /"msg":"request"/.test(logged), 'debug lines were written');
      assert.ok(!logged.includes(value), "A's value is in no log line");
      assert.ok(!JSON.stringify(answers).includes(value), 'nor in any answer, event or webhook B got');
      assert.ok(!hits.some((h) => h.includes(value)), "nor did it reach B's endpoints");
      const ownUse = await until(
        () => harness.call('GET', '/v1/bridge/credentials/a-secret', { token: a.token }),
        (r) => r.status === 200,
      );
      assert.equal(ownUse.body.credential.lastUsedAt, null, "B's probes never resolved A's credential");
    },
  );
});
