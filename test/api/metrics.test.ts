import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';
import { issueToken } from '../../jobs/accounts/issue-token.js';

/** Reads one sample's value from the Prometheus text format (`name{labels} value`). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('operations: /metrics', () => {
  let admin: string;
  before(async () => {
    const a = await harness.account();
    admin = (await issueToken(harness.deps.db, a.accountId, { name: 'ops', scopes: ['admin'] })).token;
  });

  it('refuses /metrics without an admin token or the scrape token (401), and to an ordinary token', async () => {
    const a = await harness.account();
    assert.equal((await harness.call('GET', '/metrics')).status, 401);
    assert.equal((await harness.call('GET', '/metrics', { token: a.token })).status, 401);
  });

  it('counts requests under their route template, and reads queue depth and the Postgres pool on scrape', async () => {
    const a = await harness.account();
    const route = '/v1/tokens/:tokenId';
    const before = (await harness.call('GET', '/metrics', { token: admin })).text;
    assert.equal((await harness.call('GET', `/v1/tokens/${a.tokenId}`, { token: a.token })).status, 200);
    assert.equal((await harness.call('GET', '/v1/tokens/tok_unknown', { token: a.token })).status, 404);
    const after = await harness.call('GET', '/metrics', { token: admin });
    assert.match(after.headers.get('content-type')!, /text\/plain/);
    const count = (text: string, status: string) =>
      sample(text, 'awp_http_request_duration_seconds_count', { route, status });
    assert.equal(count(after.text, '200') - count(before, '200'), 1);
    assert.equal(count(after.text, '404') - count(before, '404'), 1);
    assert.ok(!after.text.includes(a.tokenId), 'ids never become labels');
    assert.match(after.text, /awp_queue_jobs\{queue="hunt",state="waiting"\} \d+/);
    assert.match(after.text, /awp_pg_pool_connections\{state="used"\} \d+/);
    assert.match(after.text, /awp_nodejs_eventloop_lag_seconds \d/);
  });

  it('counts rate-limit rejections, and admits the configured scrape token', async () => {
    const scrape = randomBytes(16).toString('hex');
    const app = await startExtraApp({
      RATE_LIMIT_PER_MINUTE: '1',
      METRICS_TOKEN: scrape,
      QUEUE_PREFIX: `{awp-metrics-${randomBytes(3).toString('hex')}}`,
    });
    try {
      const a = await harness.account();
      await harness.call('GET', '/v1/tokens', { token: a.token }, app.url);
      assert.equal((await harness.call('GET', '/v1/tokens', { token: a.token }, app.url)).status, 429);
      const scraped = await harness.call('GET', '/metrics', { token: scrape }, app.url);
      assert.equal(scraped.status, 200);
      assert.equal(sample(scraped.text, 'awp_http_rejections_total', { reason: 'rateLimitExceeded' }), 1);
    } finally {
      await app.stop();
    }
  });
});
