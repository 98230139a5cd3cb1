import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decideRoute } from '../../jobs/orchestrator/decide.js';
import { createLogger } from '../../shared/log.js';
import { harness } from '../support/harness.js';

/** A local OpenAI-compatible endpoint whose behaviour each test sets. */
async function fakeLlm() {
  let behave: (req: http.IncomingMessage, res: http.ServerResponse, body: any) => void = () => undefined;
  const seen: any[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      seen.push({ auth: req.headers.authorization, path: req.url, body });
      behave(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    set(fn: typeof behave) {
      behave = fn;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

const answer = (content: string) => (_q: unknown, res: http.ServerResponse) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
};

describe('optional LLM router', () => {
  let llm: Awaited<ReturnType<typeof fakeLlm>>;
  let deps: { config: ReturnType<typeof harness.configWith>; log: ReturnType<typeof createLogger> };
  before(async () => {
    llm = await fakeLlm();
    deps = {
      config: harness.configWith({
        LLM_BASE_URL: llm.url,
        LLM_API_KEY: 'sk-test',
        LLM_MODEL: 'router-1',
        LLM_TIMEOUT_MS: '300',
      }),
      log: createLogger('silent'),
    };
  });
  after(() => llm.close());

  it('uses the LLM answer when it names known domains', async () => {
    llm.set(answer('{"route": ["resolve", "proxy"]}'));
    const d = await decideRoute(deps, { request: 'check this offer then ring them' });
    assert.deepEqual([d.source, d.route], ['llm', ['resolve', 'proxy']]);
    const last = llm.seen[llm.seen.length - 1];
    assert.equal(last.path, '/v1/chat/completions');
    assert.equal(last.auth, 'Bearer sk-test');
    assert.equal(last.body.model, 'router-1');
  });

  it("keeps the planner's order: a check of the counterparty before any payment the LLM put first", async () => {
    llm.set(answer('{"route": ["hunt", "pay", "resolve"]}'));
    const d = await decideRoute(deps, { request: 'find a used bike, pay for it and check the seller' });
    assert.deepEqual([d.source, d.route], ['llm', ['hunt', 'resolve', 'pay']]);
  });

  for (const [name, behave] of [
    ['a garbage answer', answer('I think you should pay')],
    ['unknown domains', answer('{"route": ["teleport"]}')],
    [
      'a 500',
      (_q: unknown, res: http.ServerResponse) => {
        res.statusCode = 500;
        res.end('boom');
      },
    ],
    ['a timeout', () => undefined],
  ] as const) {
    it(`falls back to the deterministic router on ${name}`, async () => {
      llm.set(behave as never);
      const d = await decideRoute(deps, { request: 'find a used road bike' });
      assert.equal(d.source, 'deterministic');
      assert.deepEqual(d.route, ['hunt']);
      assert.match(d.reason, /fell back/);
    });
  }

  it('is not consulted when domainRoute is given or no endpoint is configured', async () => {
    const before = llm.seen.length;
    assert.equal((await decideRoute(deps, { request: 'x', domainRoute: ['hunt'] })).source, 'forced');
    assert.equal(
      (await decideRoute({ config: harness.configWith({}), log: deps.log }, { request: 'find a bike' })).source,
      'deterministic',
    );
    assert.equal(llm.seen.length, before);
  });
});
