import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { expectedDigest as peersDigest, stepRounds } from '../../bench/peers/workload.js';
import { BENCHMARK_HASHES } from '../../shared/schemas/benchmark.js';
import { harness } from '../support/harness.js';

/**
 * The `benchmark` domain end to end (HTTP → queue → worker → Postgres): the
 * bench peers' 3-step workflow through the whole engine. The expected digest
 * is computed here from the peers' documented recipe, not with the domain's
 * code.
 */
function sha256Chain(runId: string, hashes: number, steps = ['one', 'two', 'three']): string[] {
  const digests: string[] = [];
  let prev = '';
  for (const step of steps) {
    for (let i = 0; i < hashes; i++)
      prev = createHash('sha256').update(JSON.stringify({ runId, step, i, prev })).digest('hex');
    digests.push(prev);
  }
  return digests;
}

const BENCH_ROUTE = ['benchmark', 'benchmark', 'benchmark'];

describe('benchmark domain: the peers’ step through the engine', function () {
  this.timeout(60_000);
  let token: string;
  before(async () => {
    ({ token } = await harness.account());
  });
  const run = (body: unknown, t = token) => harness.call('POST', '/v1/orchestrator/run', { token: t, body });

  it('a 3-step run answers the digest of three chained steps of `hashes` SHA-256 rounds over its run id', async () => {
    const res = await run({ request: 'bench', domainRoute: BENCH_ROUTE, metadata: { hashes: 37 } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.status, res.body.route], ['ready', BENCH_ROUTE]);
    const runId: string = res.body.runId;
    const [one, two, three] = sha256Chain(runId, 37);
    assert.deepEqual(res.body.results.benchmark, { digest: three, step: 'three', position: 2, hashes: 37 });
    assert.equal(res.body.results.benchmark.digest, peersDigest(runId, 37), "the peers' workload agrees");
    // Every step ran once, in order, on the previous step's digest.
    assert.deepEqual(res.body.agentConversation, [
      `[benchmark] Step one: 37 SHA-256 rounds → ${one!.slice(0, 12)}`,
      `[benchmark] Step two: 37 SHA-256 rounds → ${two!.slice(0, 12)}`,
      `[benchmark] Step three: 37 SHA-256 rounds → ${three!.slice(0, 12)}`,
    ]);
    // The proof card cites the latest step of each domain: here the last one, with the whole digest.
    const exported = await harness.call('POST', `/v1/audit/proofCards/${res.body.proofCard.cardId}/export`, {
      token,
      body: {},
    });
    assert.equal(exported.status, 200, exported.text);
    assert.deepEqual(
      exported.body.ledgerEntry.decision.evidence.map((e: { claim: string }) => e.claim),
      [`37 SHA-256 rounds of step three give ${three}`],
    );
    assert.equal(res.body.proofCard.evidenceStatus, 'sourceBound');
  });

  it("without metadata.hashes a step does the peers' default of 100 rounds", async () => {
    assert.equal(BENCHMARK_HASHES.default, stepRounds({}), 'awp and the peers default alike');
    const res = await run({ request: 'bench', domainRoute: BENCH_ROUTE });
    assert.equal(res.body.status, 'ready', res.text);
    assert.equal(res.body.results.benchmark.digest, sha256Chain(res.body.runId, 100)[2]);
    const single = await run({ request: 'bench', domainRoute: ['benchmark'], metadata: { hashes: 10_000 } });
    assert.equal(single.body.status, 'ready', single.text);
    assert.equal(single.body.results.benchmark.digest, sha256Chain(single.body.runId, 10_000, ['one'])[0]);
  });

  it('refuses hashes out of range or not a whole number with a 400 naming the field, and starts no run', async () => {
    const before = await harness.deps.db('runs').count({ n: '*' }).first();
    for (const hashes of [10_001, -1, 1.5, '100', 1e9]) {
      const res = await run({ request: 'bench', domainRoute: BENCH_ROUTE, metadata: { hashes } });
      assert.equal(res.status, 400, `${hashes}: ${res.text}`);
      assert.equal(res.body.error, 'invalidPayload');
      assert.match(res.body.message, /^Request body is invalid: \/metadata\/hashes must be/);
    }
    const after = await harness.deps.db('runs').count({ n: '*' }).first();
    assert.equal(Number(after?.n), Number(before?.n));
  });

  it('is reached only by a domainRoute naming it: the router never picks it', async () => {
    for (const query of [
      'run the benchmark',
      'benchmark: hash this 100 times with sha-256',
      'compute 100 SHA-256 hashes for a load test',
      'bench',
    ]) {
      const res = await harness.call('POST', '/v1/tools/nlp', { token, body: { query } });
      // A request nothing else claims is refused (400) rather than sent here.
      assert.ok(res.status === 200 || res.status === 400, res.text);
      if (res.status === 200) assert.ok(!res.body.route.includes('benchmark'), `${query} → ${res.body.route}`);
    }
  });

  it('needs runs:write like any run, and nothing more', async () => {
    const { token: readOnly } = await harness.account({ scopes: ['runs:read'] });
    assert.equal((await run({ request: 'bench', domainRoute: BENCH_ROUTE }, readOnly)).status, 403);
    const { token: runsOnly } = await harness.account({ scopes: ['runs:write', 'runs:read'] });
    const res = await run({ request: 'bench', domainRoute: BENCH_ROUTE, metadata: { hashes: 1 } }, runsOnly);
    assert.equal(res.body.status, 'ready', res.text);
  });

  it('the OpenAPI document lists the domain in its domain enums', async () => {
    const doc = (await harness.call('GET', '/openapi.json')).body;
    const run = doc.paths['/v1/orchestrator/run'].post.requestBody.content['application/json'].schema;
    const body = run.$ref ? doc.components.schemas[run.$ref.split('/').pop()] : run;
    assert.ok(
      body.properties.domainRoute.items.enum.includes('benchmark'),
      JSON.stringify(body.properties.domainRoute),
    );
    assert.deepEqual(body.properties.metadata.properties.hashes, {
      type: 'integer',
      minimum: 0,
      maximum: BENCHMARK_HASHES.max,
      description: body.properties.metadata.properties.hashes.description,
    });
    const manifest = await harness.call('GET', '/v1/manifest');
    assert.ok(manifest.body.domains.includes('benchmark'), manifest.text);
  });
});
