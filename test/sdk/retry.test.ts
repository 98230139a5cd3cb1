import assert from 'node:assert/strict';
import { registerStepHandler } from '../../jobs/steps.js';
import { AwpError, createAwpClient, type RetryInfo } from '../../sdk/src/index.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

/**
 * A 429 from the service itself: an app where an account has one run in flight and may hold none, so a second run is
 * refused with Retry-After while the first runs. The account's admission pace is set to 1 s (what an account admitting
 * a run a second has), so Retry-After says 1 s rather than the 10 s of an account that never had a run admitted.
 */
describe('SDK: retries a 429 after its Retry-After', function () {
  this.timeout(60_000);
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  let account: { accountId: string; token: string };
  let unregister: () => void;
  let release: (() => void) | undefined;
  const body = { request: 'audit this', domainRoute: ['resolve' as const] };

  before(async () => {
    app = await startExtraApp({ ACCOUNT_RUNS_IN_FLIGHT_TEAM: '1', ACCOUNT_RUNS_HELD_MAX: '0' });
    account = await harness.account();
    unregister = registerStepHandler('resolve', async (input) => {
      if (input.accountId === account.accountId && !release) await new Promise<void>((resolve) => (release = resolve));
      return { output: { audited: true }, evidence: [], conversation: ['audited'] };
    });
  });

  after(async () => {
    release?.();
    unregister();
    await app.stop();
  });

  it('waits what Retry-After says, then sends the same request with the same Idempotency-Key', async () => {
    const keys: Array<string | null> = [];
    const retries: RetryInfo[] = [];
    const awp = createAwpClient({
      baseUrl: app.url,
      token: account.token,
      fetch: (input, init) => {
        const req = new Request(input, init);
        if (req.method === 'POST') keys.push(req.headers.get('idempotency-key'));
        return fetch(req);
      },
      retry: {
        onRetry: (info) => {
          retries.push(info);
          release?.(); // the run in flight ends while the client waits, so the retry finds a place
        },
      },
    });
    const first = await awp.runs.submit(body, { mode: 'async' });
    await until(() => release, Boolean);
    await harness.deps
      .db('run_admissions')
      .where({ account_id: account.accountId })
      .update({ admit_interval_ms: 1000 });
    keys.length = 0;
    const second = await awp.runs.submit(body, { mode: 'async' });
    assert.notEqual(second.runId, first.runId);
    assert.ok(retries.length >= 1);
    assert.deepEqual(
      { status: retries[0]!.status, delayMs: retries[0]!.delayMs, method: retries[0]!.method },
      { status: 429, delayMs: 1000, method: 'POST' },
    );
    assert.equal(keys.length, retries.length + 1, 'one request per attempt');
    assert.equal(new Set(keys).size, 1, 'every attempt carried the first one’s Idempotency-Key');
    const runs = await harness.deps.db('runs').where({ account_id: account.accountId }).count({ n: '*' }).first();
    assert.equal(Number(runs!.n), 2, 'the refused attempts wrote nothing');
  });

  it('does not wait longer than maxDelayMs: the 429 comes back as an AwpError with retryAfterMs', async () => {
    // The last test's run may still be finishing: the place must be free before this test takes it.
    await until(
      () => harness.deps.db('runs').where({ account_id: account.accountId }).whereIn('status', ['queued', 'running']),
      (rows) => rows.length === 0,
    );
    release = undefined;
    const awp = createAwpClient({ baseUrl: app.url, token: account.token, retry: { maxDelayMs: 500 } });
    await awp.runs.submit(body, { mode: 'async' });
    await until(() => release, Boolean);
    await harness.deps
      .db('run_admissions')
      .where({ account_id: account.accountId })
      .update({ admit_interval_ms: 1000 });
    const refused = await awp.runs.submit(body, { mode: 'async' }).catch((e) => e);
    assert.ok(refused instanceof AwpError, String(refused));
    assert.deepEqual([refused.status, refused.code, refused.retryAfterMs], [429, 'rateLimitExceeded', 1000]);
    assert.equal((refused.details as { reason?: string }).reason, 'accountHold');
  });
});
