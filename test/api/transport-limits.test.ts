import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const mcpInit = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const a2aGet = { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'run_missing' } };

describe('one budget and one identity across HTTP, MCP and A2A', () => {
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  before(async () => {
    app = await startExtraApp({
      RATE_LIMIT_PER_MINUTE: '5',
      ACCOUNT_RATE_LIMIT_PER_MINUTE: '100',
      PUBLIC_BASE_URL: 'https://awp.example/',
    });
  });
  after(() => app.stop());

  it(
    "a token's burst budget is shared: requests over any transport count, and the next one on any transport is " +
      '429',
    async () => {
      const { token } = await harness.account();
      const http = () => harness.call('GET', '/v1/runs', { token }, app.url);
      const mcp = () => harness.call('POST', '/mcp', { token, body: mcpInit, headers: MCP_HEADERS }, app.url);
      const a2a = () =>
        harness.call('POST', '/a2a', { token, body: a2aGet, headers: { 'a2a-version': '1.0' } }, app.url);
      const spent = [await http(), await mcp(), await a2a(), await http(), await a2a()];
      assert.deepEqual(
        spent.map((r) => r.status),
        [200, 200, 200, 200, 200],
      );
      assert.equal(spent[2]!.body.error.code, -32001, 'an A2A answer, not a refusal');
      for (const next of [mcp, a2a, http]) {
        const refused = await next();
        assert.deepEqual([refused.status, refused.body.error], [429, 'rateLimitExceeded']);
        assert.ok(refused.headers.get('retry-after'));
      }
      const client = new Client({ name: 'awp-test', version: '1.0.0' });
      await assert.rejects(
        client.connect(
          new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
            requestInit: { headers: { Authorization: `Bearer ${token}` } },
          }),
        ),
        /rateLimitExceeded/,
      );
    },
  );

  it('the agent card names PUBLIC_BASE_URL when it is set', async () => {
    // With a token of its own: anonymous calls share the per-IP budget with every other test's.
    const { token } = await harness.account();
    const card = await harness.call(
      'GET',
      '/.well-known/agent-card.json',
      { token, headers: { 'a2a-version': '1.0' } },
      app.url,
    );
    assert.equal(card.body.supportedInterfaces[0].url, 'https://awp.example/a2a');
    assert.equal(card.body.provider.url, 'https://awp.example');
  });

  it('POST /v1/handshake reports each transport: served, allowed for this token, and where it starts', async () => {
    const { token } = await harness.account();
    const all = await harness.call('POST', '/v1/handshake', { token, body: { domains: ['hunt'], transport: 'a2a' } });
    assert.deepEqual([all.status, all.body.compatible, all.body.transportCompatible], [200, true, true]);
    assert.deepEqual(all.body.transports, [
      { name: 'http', served: true, allowed: true, entryPoint: '/openapi.json' },
      { name: 'mcp', served: true, allowed: true, entryPoint: '/mcp' },
      { name: 'a2a', served: true, allowed: true, entryPoint: '/.well-known/agent-card.json' },
    ]);
    const narrowed = await harness.call('POST', '/v1/tokens', { token, body: { transports: ['http'] } });
    const httpOnly = await harness.call('POST', '/v1/handshake', {
      token: narrowed.body.token,
      body: { domains: ['hunt'], transport: 'mcp' },
    });
    assert.deepEqual([httpOnly.body.compatible, httpOnly.body.transportCompatible], [false, false]);
    assert.deepEqual(
      httpOnly.body.transports.map((t: any) => t.allowed),
      [true, false, false],
    );
  });

  it('a token narrowed to A2A works at /a2a and is refused over HTTP and MCP', async () => {
    const { token } = await harness.account();
    const a2aOnly = (await harness.call('POST', '/v1/tokens', { token, body: { transports: ['a2a'] } })).body.token;
    const ok = await harness.call('POST', '/a2a', { token: a2aOnly, body: a2aGet, headers: { 'a2a-version': '1.0' } });
    assert.deepEqual([ok.status, ok.body.error.code], [200, -32001]);
    assert.equal((await harness.call('GET', '/v1/runs', { token: a2aOnly })).status, 403);
    assert.equal(
      (await harness.call('POST', '/mcp', { token: a2aOnly, body: mcpInit, headers: MCP_HEADERS })).status,
      403,
    );
    const listed = await harness.call('GET', '/v1/tokens', { token });
    assert.deepEqual(
      listed.body.tokens.map((t: any) => t.transports),
      [['a2a'], ['http', 'mcp', 'a2a']],
    );
  });
});
