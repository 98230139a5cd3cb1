import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { ALL_ROUTES } from '../../api/routes/index.js';
import { toolRoutes } from '../../api/transports/mcp-tools.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

/** The official MCP client, unmodified: Streamable HTTP, the token in requestInit.headers. */
async function connect(token?: string): Promise<Client> {
  const client = new Client({ name: 'awp-test', version: '1.0.0' });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`), { requestInit: { headers } }));
  return client;
}

const rpc = (id: number, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

describe('MCP at POST /mcp (official client, real server)', () => {
  let a: { token: string; accountId: string; tokenId: string };
  let b: { token: string };
  let client: Client;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    await seedCatalog(a.accountId);
    client = await connect(a.token);
  });
  after(() => client.close());

  it(
    'initializes with a protocol version the SDK offers ' + "and lists the route table's tools, no second list",
    async () => {
      assert.equal(client.getServerVersion()?.name, 'awp');
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).sort();
      assert.deepEqual(names, [...toolRoutes(ALL_ROUTES).keys()].sort());
      const named = ALL_ROUTES.filter((r) => r.mcpTool).map((r) => r.mcpTool!);
      assert.equal(new Set(named).size, named.length, 'each tool name names one route');
      for (const expected of [
        'orchestrator.run',
        'runs.get',
        'runs.events',
        'runs.resume',
        'runs.cancel',
        'workflows.listTemplates',
        'workflows.runTemplate',
        'hunt.search',
        'tools.nlp',
        'tools.map',
        'tools.browserReader',
        'tools.imageReader',
        'pay.settle',
        'pay.createMandate',
        'resolve.scamTriage',
        'tools.chainTrace',
      ]) {
        assert.ok(names.includes(expected), expected);
      }
      // A route still pending offers no tool until it is built.
      for (const r of ALL_ROUTES.filter((x) => x.pendingIssue && x.mcpTool))
        assert.ok(!names.includes(r.mcpTool!), r.mcpTool!);
      const run = tools.find((t) => t.name === 'orchestrator.run')!;
      assert.equal(run.inputSchema.type, 'object');
      assert.deepEqual(run.inputSchema.required, ['request']);
      assert.ok(!JSON.stringify(tools).includes('"$id"'));
      const resume = tools.find((t) => t.name === 'runs.resume')!;
      assert.deepEqual(resume.inputSchema.required, ['runId']);
      assert.equal(tools.find((t) => t.name === 'runs.get')!.annotations?.readOnlyHint, true);
      assert.deepEqual(await client.ping(), {});
    },
  );

  it('initialize agrees on each protocol version the SDK offers, and offers its latest for any other', async () => {
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const res = await harness.call('POST', '/mcp', {
        token: a.token,
        body: rpc(1, 'initialize', {
          protocolVersion: version,
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        }),
        headers: MCP_HEADERS,
      });
      assert.deepEqual(
        [res.status, res.body.result.protocolVersion, res.body.result.capabilities.tools],
        [200, version, { listChanged: false }],
      );
    }
    const other = await harness.call('POST', '/mcp', {
      token: a.token,
      body: rpc(1, 'initialize', {
        protocolVersion: '1999-01-01',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      }),
      headers: MCP_HEADERS,
    });
    assert.equal(other.body.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  });

  it('a tool call starts a run whose status is then read over HTTP with the same run ID', async () => {
    const result = await client.callTool({
      name: 'orchestrator.run',
      arguments: { request: 'find the cheapest espresso machine under $250', domainRoute: ['hunt'] },
    });
    assert.ok(!result.isError, JSON.stringify(result));
    const out = result.structuredContent as any;
    assert.equal(out.status, 'ready');
    assert.match(out.runId, /^run_/);
    assert.deepEqual(JSON.parse((result.content as any)[0].text), out);
    const http = await harness.call('GET', `/v1/runs/${out.runId}`, { token: a.token });
    assert.equal(http.status, 200);
    assert.equal(http.body.run.status, 'ready');
    assert.deepEqual(http.body.run.route, ['hunt']);
    const row = await harness.deps.db('runs').where({ id: out.runId }).first();
    assert.equal(row.channel, 'mcp');

    const got = await client.callTool({ name: 'runs.get', arguments: { runId: out.runId } });
    assert.equal((got.structuredContent as any).run.runId, out.runId);
    const events = await client.callTool({ name: 'runs.events', arguments: { runId: out.runId, limit: 2 } });
    const page = events.structuredContent as any;
    assert.deepEqual(
      page.events.map((e: any) => e.id),
      [1, 2],
    );
    assert.equal(page.more, true);
    assert.equal(page.resting, true);
    const rest = await client.callTool({
      name: 'runs.events',
      arguments: { runId: out.runId, after: page.nextAfter, limit: 500 },
    });
    assert.equal((rest.structuredContent as any).events.at(-1).type, 'final');
    // The same page over HTTP with Accept: application/json.
    const httpPage = await harness.call('GET', `/v1/runs/${out.runId}/events?limit=2`, {
      token: a.token,
      headers: { accept: 'application/json' },
    });
    assert.deepEqual(httpPage.body.events, page.events);
  });

  it("business errors are isError results carrying the service's error code; unknown tools are -32602", async () => {
    const bad = await client.callTool({ name: 'orchestrator.run', arguments: { request: '' } });
    assert.equal(bad.isError, true);
    assert.equal((bad.structuredContent as any).error, 'invalidPayload');
    assert.equal((bad.structuredContent as any).details[0].path, '/request');
    // What a run could not do is its result, not an error: bridge says why it sent nothing.
    const unsent = await client.callTool({
      name: 'orchestrator.run',
      arguments: { request: 'sync the CRM connector', domainRoute: ['bridge'] },
    });
    assert.notEqual(unsent.isError, true);
    assert.equal((unsent.structuredContent as any).results.bridge.reason, 'notUnderstood');
    const missing = await client.callTool({ name: 'runs.get', arguments: { runId: 'run_missing' } });
    assert.equal((missing.structuredContent as any).error, 'notFound');
    const stream = await client.callTool({
      name: 'orchestrator.run',
      arguments: { request: 'find an espresso machine', stream: true },
    });
    assert.equal((stream.structuredContent as any).error, 'invalidPayload');
    await assert.rejects(client.callTool({ name: 'no.such.tool', arguments: {} }), (err: any) => err.code === -32602);
  });

  it("another account's run is not found over MCP either", async () => {
    const run = await harness.call('POST', '/v1/orchestrator/run', {
      token: a.token,
      body: { request: 'audit this claim', domainRoute: ['resolve'] },
    });
    const other = await connect(b.token);
    try {
      for (const name of ['runs.get', 'runs.cancel', 'runs.events']) {
        const res = await other.callTool({ name, arguments: { runId: run.body.runId } });
        assert.equal((res.structuredContent as any).error, 'notFound', name);
      }
    } finally {
      await other.close();
    }
  });

  it('no token or a bad token is HTTP 401 for the client; GET and DELETE answer 405', async () => {
    await assert.rejects(connect(), (err: any) => /401/.test(String(err.message ?? err)) || err.code === 401);
    await assert.rejects(
      connect('awp_not-a-real-token'),
      (err: any) => /401/.test(String(err.message ?? err)) || err.code === 401,
    );
    const raw = await harness.call('POST', '/mcp', { body: rpc(1, 'tools/list'), headers: MCP_HEADERS });
    assert.equal(raw.status, 401);
    assert.equal(raw.body.error, 'unauthorized');
    assert.equal((await harness.call('GET', '/mcp', { token: a.token })).status, 405);
    assert.equal((await harness.call('DELETE', '/mcp', { token: a.token })).status, 405);
  });

  it('scopes and the starter allowance are the HTTP ones (the burst budget: transport-limits.test.ts)', async () => {
    const readOnly = await harness.account({ scopes: ['runs:read'] });
    const reader = await connect(readOnly.token);
    try {
      const names = (await reader.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('runs.get') && !names.includes('orchestrator.run'));
      const refused = await reader.callTool({
        name: 'orchestrator.run',
        arguments: { request: 'audit this', domainRoute: ['resolve'] },
      });
      assert.equal((refused.structuredContent as any).error, 'forbidden');
    } finally {
      await reader.close();
    }
    const starter = await harness.account({ activated: false, plan: 'builder' });
    const limited = await connect(starter.token);
    try {
      const codes: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await limited.callTool({
          name: 'orchestrator.run',
          arguments: { request: 'audit this claim', domainRoute: ['resolve'] },
        });
        codes.push(res.isError ? (res.structuredContent as any).error : 'ok');
      }
      // Two over HTTP, three over MCP: the sixth workflow request of the starter allowance (5) is refused, whichever
      // transport carries it.
      for (let i = 0; i < 2; i++)
        codes.push(
          (
            await harness.call('POST', '/v1/orchestrator/run', {
              token: starter.token,
              body: { request: 'audit this claim', domainRoute: ['resolve'] },
            })
          ).status === 200
            ? 'ok'
            : 'refused',
        );
      const sixth = await limited.callTool({
        name: 'orchestrator.run',
        arguments: { request: 'audit this claim', domainRoute: ['resolve'] },
      });
      assert.deepEqual(codes, ['ok', 'ok', 'ok', 'ok', 'ok']);
      assert.equal((sixth.structuredContent as any).error, 'forbidden');
    } finally {
      await limited.close();
    }
  });

  it('a token narrowed to MCP works there and nowhere else; an HTTP-only token is refused at /mcp', async () => {
    const mcpOnly = await harness.call('POST', '/v1/tokens', {
      token: a.token,
      body: { name: 'mcp host', transports: ['mcp'] },
    });
    assert.equal(mcpOnly.status, 201, mcpOnly.text);
    assert.deepEqual(mcpOnly.body.tokenInfo.transports, ['mcp']);
    const viaMcp = await connect(mcpOnly.body.token);
    try {
      assert.ok((await viaMcp.listTools()).tools.length > 0);
    } finally {
      await viaMcp.close();
    }
    const overHttp = await harness.call('GET', '/v1/runs', { token: mcpOnly.body.token });
    assert.equal(overHttp.status, 403);
    const httpOnly = await harness.call('POST', '/v1/tokens', { token: a.token, body: { transports: ['http'] } });
    const refused = await harness.call('POST', '/mcp', {
      token: httpOnly.body.token,
      body: rpc(1, 'tools/list'),
      headers: MCP_HEADERS,
    });
    assert.equal(refused.status, 403);
    // A narrowed token cannot mint a wider one.
    const wider = await harness.call('POST', '/v1/tokens', {
      token: mcpOnly.body.token,
      body: { transports: ['mcp', 'http'] },
    });
    assert.equal(wider.status, 403);
  });

  it(
    'malformed messages are refused in the error envelope: a batch, a non-JSON-RPC body, an unknown protocol ' +
      'version',
    async () => {
      const batch = await harness.call('POST', '/mcp', {
        token: a.token,
        body: [rpc(1, 'ping'), rpc(2, 'ping')],
        headers: MCP_HEADERS,
      });
      assert.deepEqual([batch.status, batch.body.error], [400, 'invalidPayload']);
      const notRpc = await harness.call('POST', '/mcp', {
        token: a.token,
        body: { hello: 'world' },
        headers: MCP_HEADERS,
      });
      assert.deepEqual([notRpc.status, notRpc.body.error], [400, 'invalidPayload']);
      const nullId = await harness.call('POST', '/mcp', {
        token: a.token,
        body: { jsonrpc: '2.0', id: null, method: 'ping' },
        headers: MCP_HEADERS,
      });
      assert.deepEqual(
        [nullId.status, nullId.body.error, nullId.body.details.jsonRpcError.code],
        [400, 'invalidPayload', -32700],
      );
      const version = await harness.call('POST', '/mcp', {
        token: a.token,
        body: rpc(1, 'tools/list'),
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' },
      });
      assert.deepEqual([version.status, version.body.error], [400, 'invalidPayload']);
      assert.match(version.body.message, /Unsupported protocol version/);
      // The answer is JSON whatever else the client accepts, and every body is read as JSON, as on every route.
      const plain = await harness.call('POST', '/mcp', {
        token: a.token,
        body: rpc(1, 'ping'),
        headers: { accept: 'application/json', 'content-type': 'text/plain' },
      });
      assert.deepEqual([plain.status, plain.body.result], [200, {}]);
      const notification = await harness.call('POST', '/mcp', {
        token: a.token,
        body: { jsonrpc: '2.0', method: 'notifications/initialized' },
        headers: MCP_HEADERS,
      });
      assert.equal(notification.status, 202);
    },
  );
});
