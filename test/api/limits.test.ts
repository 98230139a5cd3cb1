import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';
import { ROOT } from '../support/spawn.js';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';

/** An operator token minted the way the README says: the CLI's last stdout line. */
async function mintOperatorToken(): Promise<string> {
  const child = spawn('sh', ['-c', 'npm run -s token:admin -- load | tail -1'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: harness.config.DATABASE_URL!, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise((resolve) => child.once('close', resolve));
  assert.equal(code, 0, err);
  return out.replace(/\n$/, '');
}

describe('rate limits and idempotency', () => {
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  before(async () => {
    app = await startExtraApp({ RATE_LIMIT_PER_MINUTE: '5' });
  });
  after(() => app.stop());

  it('sends X-RateLimit headers and answers 429 with Retry-After past the per-token limit', async () => {
    const { token } = await harness.account();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await harness.call('GET', '/v1/tokens', { token }, app.url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), '5');
      assert.ok(Number(res.headers.get('x-ratelimit-reset')) > Date.now() / 1000);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    assert.deepEqual(remaining, [4, 3, 2, 1, 0]);
    const limited = await harness.call('GET', '/v1/tokens', { token }, app.url);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error, 'rateLimitExceeded');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
    // Another token has its own budget.
    const other = await harness.account();
    assert.equal((await harness.call('GET', '/v1/tokens', { token: other.token }, app.url)).status, 200);
  });

  it('an account has one budget across its tokens: minting tokens buys no requests', async () => {
    const limited = await startExtraApp({ RATE_LIMIT_PER_MINUTE: '5', ACCOUNT_RATE_LIMIT_PER_MINUTE: '8' });
    try {
      const { accountId, token } = await harness.account();
      const tokens = [
        token,
        ...(await Promise.all(
          [1, 2].map(
            async () => (await issueToken(harness.deps.db, accountId, { name: 'extra', scopes: DEFAULT_SCOPES })).token,
          ),
        )),
      ];
      const statuses: number[] = [];
      for (let i = 0; i < 9; i++)
        statuses.push((await harness.call('GET', '/v1/tokens', { token: tokens[i % 3] }, limited.url)).status);
      assert.deepEqual(
        statuses,
        [200, 200, 200, 200, 200, 200, 200, 200, 429],
        'three tokens of 5 each, but 8 for the account',
      );
      const refused = await harness.call('GET', '/v1/tokens', { token: tokens[0] }, limited.url);
      assert.match(refused.body.message, /for this account/);
      assert.equal(refused.headers.get('x-ratelimit-limit'), '8');
      const other = await harness.account();
      assert.equal(
        (await harness.call('GET', '/v1/tokens', { token: other.token }, limited.url)).status,
        200,
        'another account has its own budget',
      );
    } finally {
      await limited.stop();
    }
  });

  it(
    'an operator token (npm run token:admin) is ' + 'exempt from the burst limit; a normal token is ' + 'not',
    async function () {
      this.timeout(60_000);
      const operator = await mintOperatorToken();
      assert.match(operator, /^awp_[A-Za-z0-9_-]{43}$/, 'the bare token, alone on the last line');
      for (let i = 0; i < 12; i++) {
        const res = await harness.call('GET', '/v1/tokens', { token: operator }, app.url);
        assert.equal(res.status, 200, `operator request ${i + 1} of 12 (limit 5)`);
        assert.equal(res.headers.get('x-ratelimit-limit'), null, 'no budget is counted');
      }
      const { token } = await harness.account();
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await harness.call('GET', '/v1/tokens', { token }, app.url)).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    },
  );

  it('replays the first response for a repeated Idempotency-Key and creates nothing twice', async () => {
    const { token, accountId } = await harness.account();
    const headers = { 'idempotency-key': `k-${accountId}` };
    const body = { type: 'invoice.paid', payload: { n: 1 } };
    const first = await harness.call('POST', '/v1/events', { token, body, headers });
    const second = await harness.call('POST', '/v1/events', { token, body, headers });
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(second.body, first.body);
    const rows = await harness.deps.db('events').where({ account_id: accountId, type: 'invoice.paid' });
    assert.equal(rows.length, 1);
  });

  it('answers 409 when an Idempotency-Key is reused with a different body', async () => {
    const { token } = await harness.account();
    const headers = { 'idempotency-key': 'same-key' };
    assert.equal((await harness.call('POST', '/v1/tokens', { token, body: { name: 'a' }, headers })).status, 201);
    const clash = await harness.call('POST', '/v1/tokens', { token, body: { name: 'b' }, headers });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.error, 'conflict');
  });

  it('keys are per account and a failed request frees its key', async () => {
    const a = await harness.account();
    const b = await harness.account();
    const headers = { 'idempotency-key': 'shared-name' };
    const bad = await harness.call('POST', '/v1/tokens', { token: a.token, body: { scopes: ['admin'] }, headers });
    assert.equal(bad.status, 403);
    assert.equal(
      (await harness.call('POST', '/v1/tokens', { token: a.token, body: { name: 'x' }, headers })).status,
      201,
    );
    const fromB = await harness.call('POST', '/v1/tokens', { token: b.token, body: { name: 'x' }, headers });
    assert.equal(fromB.status, 201);
    assert.equal(fromB.headers.get('idempotent-replayed'), null);
  });
});
