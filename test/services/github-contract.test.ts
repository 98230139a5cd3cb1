import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { ProviderCallContext } from '../../jobs/bridge/providers/adapter.js';
import { githubAdapter } from '../../jobs/bridge/providers/github.js';
import { commitGates } from '../../jobs/bridge/providers/github-gates.js';
import { workflowRunNow } from '../../jobs/bridge/providers/github-run.js';
import { octokitFor } from '../../jobs/bridge/providers/github-client.js';
import { harness } from '../support/harness.js';
import { startPrism, type PrismMock } from '../support/prism.js';
import { documentOrigin, providerDocument, writeSlice, type Operation } from '../support/openapi-slice.js';

/** What the adapter calls (method, path): keep in step with jobs/bridge/providers/github*.ts. */
const GITHUB_OPERATIONS: Operation[] = [
  ['post', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches'],
  ['get', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs'],
  ['get', '/repos/{owner}/{repo}/actions/runs/{run_id}'],
  ['get', '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs'],
  ['get', '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs'],
  ['post', '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs'],
  ['get', '/repos/{owner}/{repo}/commits/{ref}/check-runs'],
  ['get', '/repos/{owner}/{repo}/commits/{ref}/status'],
  ['get', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews'],
  ['post', '/app/installations/{installation_id}/access_tokens'],
];
const ID = 'github.com/api.github.com';
const origin = documentOrigin(providerDocument(ID));

/**
 * Every request the GitHub adapter makes, sent to Prism serving GitHub's published REST description (the slice the
 * adapter uses; test/fixtures/providers/README.md) with `--errors`: a request that breaks the contract is refused
 * there (422/404 and a violation in Prism's log), and fails here. Prism answers each request alone from the
 * document's examples, so the run-following flow is played by the stateful fake (test/support/github-fake.ts).
 */
describe(`the GitHub adapter's requests against GitHub's REST description ${origin.version} (Prism)`, function () {
  this.timeout(300_000);
  let prism: PrismMock;
  let ctx: ProviderCallContext;
  before(async () => {
    // Answers generated from the response schemas: the document's own examples lack fields its schemas require (a
    // workflow run's), which Prism with --errors refuses as its own answer, saying nothing of the request.
    prism = await startPrism(writeSlice(ID, GITHUB_OPERATIONS), undefined, { dynamic: true });
    ctx = {
      deps: harness.deps,
      connector: { endpoint: prism.url } as ProviderCallContext['connector'],
      secret: 'ghp_contractToken000000000000000000000000',
      idempotencyKey: 'bac_contract1',
    };
  });
  after(async () => {
    if (process.env.PRISM_DEBUG) console.log(prism.output());
    await prism?.stop();
  });

  it('dispatch (with the run lookups), run, jobs, logs, re-run, checks, statuses and reviews all pass', async () => {
    const dispatched = await githubAdapter.call(
      'ci.trigger',
      { repo: 'octo/shop', workflow: 'deploy.yml', ref: 'main', inputs: { version: '3.0.0', environment: 'staging' } },
      ctx,
    );
    assert.equal(dispatched.status, 'succeeded', JSON.stringify(dispatched));
    assert.equal(dispatched.answer.correlationId, 'bac_contract1');
    const run = await workflowRunNow(ctx, { owner: 'octo', repo: 'shop', runId: 30433642 });
    assert.ok(!('error' in run), JSON.stringify(run));
    // The document's example run is completed: whatever it concluded, a failure reads the jobs (and their logs).
    const rerun = await githubAdapter.call('ci.rerun', { repo: 'octo/shop', runId: 30433642 }, ctx);
    assert.equal(rerun.status, 'succeeded', JSON.stringify(rerun));
    const gates = await commitGates(ctx, { owner: 'octo', repo: 'shop', ref: 'main', pullNumber: 12 });
    assert.ok(!('error' in gates), JSON.stringify(gates));
    assert.ok(Array.isArray(gates.checks) && Array.isArray(gates.statuses) && Array.isArray(gates.reviews));
    const client = await octokitFor(prism.url, ctx.secret!, true);
    // The jobs and logs reads, asked directly (the example run above may have succeeded, when they are not read).
    await client.rest.actions.listJobsForWorkflowRun({ owner: 'octo', repo: 'shop', run_id: 1, filter: 'latest' });
    await client.rest.actions
      .downloadJobLogsForWorkflowRun({ owner: 'octo', repo: 'shop', job_id: 399444496 })
      .catch(() => undefined); // a 302 to the example's blob host, out of reach here: the request itself is checked
    assert.deepEqual(prism.violations(), [], 'Prism found no request breaking the contract');
  });

  it('a GitHub App credential is turned into an installation token by the documented request', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const app = { ...ctx, secret: `12345@67890:${pem}` };
    const gates = await commitGates(app, { owner: 'octo', repo: 'shop', ref: 'main' });
    assert.ok(!('error' in gates), JSON.stringify(gates));
    assert.ok(/POST .*\/app\/installations\/67890\/access_tokens/i.test(prism.output()), 'the token was asked for');
    assert.deepEqual(prism.violations(), []);
  });

  it('is a real check: a request that breaks the contract is refused (422) and logged', async () => {
    const client = await octokitFor(prism.url, ctx.secret!, true);
    await assert.rejects(
      client.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
        owner: 'octo',
        repo: 'shop',
        workflow_id: 'deploy.yml',
        inputs: { version: '3' },
      } as never),
      (err: { status?: number }) => err.status === 422,
    );
    assert.ok(
      prism.violations().some((l) => /ref/.test(l)),
      prism.output().slice(-2000),
    );
  });
});
