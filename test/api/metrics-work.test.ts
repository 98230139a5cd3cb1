import assert from 'node:assert/strict';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { harness } from '../support/harness.js';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

type Family = {
  name: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; count?: string }>;
};

/**
 * A sample's value (a counter's, or a histogram's count) by family and labels, from /metrics read with a Prometheus
 * text-format parser.
 */
function valueOf(families: Family[], name: string, labels: Record<string, string>): number {
  const family = families.find((f) => f.name === name);
  const m = family?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return Number(m?.value ?? m?.count ?? 0);
}

describe('operations: what the work processes count', function () {
  this.timeout(60_000);
  let admin: string;
  before(async () => {
    const a = await harness.account();
    admin = (await issueToken(harness.deps.db, a.accountId, { name: 'ops', scopes: ['admin'] })).token;
  });
  const scrape = async () =>
    parsePrometheusTextFormat((await harness.call('GET', '/metrics', { token: admin })).text) as Family[];
  const text = async () => (await harness.call('GET', '/metrics', { token: admin })).text;
  /** A histogram's `_count` sample (the parser keeps a histogram's buckets but not its labels). */
  const histogramCount = (body: string, name: string, labels: string) =>
    Number(
      new RegExp(`^${name}_count\\{${labels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\} (\\S+)$`, 'm').exec(body)?.[1] ??
        0,
    );

  it(
    'runs by outcome and domain, step and job durations ' + 'move after a run (web process with the workers in it)',
    async () => {
      const before = await scrape();
      const beforeText = await text();
      const { token } = await harness.account();
      const run = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: {
          request: 'check this invoice for hidden fees: total $120 plus a $15 service fee',
          domainRoute: ['resolve'],
        },
      });
      assert.equal(run.status, 200, run.text);
      assert.equal(run.body.status, 'ready');
      const after = await scrape();
      const afterText = await text();
      const moved = (name: string, labels: Record<string, string>) =>
        valueOf(after, name, labels) - valueOf(before, name, labels);
      const countMoved = (name: string, labels: string) =>
        histogramCount(afterText, name, labels) - histogramCount(beforeText, name, labels);
      assert.ok(
        moved('awp_runs_finished_total', { outcome: 'succeeded', domain: 'resolve' }) >= 1,
        'a succeeded run through resolve',
      );
      assert.ok(countMoved('awp_step_duration_seconds', 'domain="resolve",result="completed"') >= 1, 'its step timed');
      assert.ok(countMoved('awp_job_duration_seconds', 'queue="resolve",result="completed"') >= 1, 'its job timed');
      for (const name of [
        'awp_webhook_deliveries_total',
        'awp_http_request_duration_seconds',
        'awp_queue_jobs',
        'awp_nodejs_eventloop_lag_seconds',
      ]) {
        assert.ok(
          after.some((f) => f.name === name),
          name,
        );
      }
    },
  );

  it('a worker process serves its own /metrics on METRICS_PORT, behind METRICS_TOKEN when set', async () => {
    const token = 'scrape-token-0123456789abcdef';
    const child = spawnEntry('dist/workers/domains.js', {
      DATABASE_URL: harness.config.DATABASE_URL!,
      REDIS_URL: harness.config.REDIS_URL!,
      QUEUE_PREFIX: `{awp-metrics-${process.pid}}`,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      METRICS_TOKEN: token,
    });
    try {
      const out = await waitForOutput(child, (o) => o.includes('metrics listening'));
      const url = /"url":"(http:[^"]+\/metrics)"/.exec(out)![1]!;
      assert.equal((await fetch(url)).status, 401);
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      const families = parsePrometheusTextFormat(await res.text()) as Family[];
      for (const name of [
        'awp_runs_finished_total',
        'awp_step_duration_seconds',
        'awp_job_duration_seconds',
        'awp_nodejs_eventloop_lag_seconds',
      ]) {
        assert.ok(
          families.some((f) => f.name === name),
          name,
        );
      }
    } finally {
      assert.equal(await stopWith(child, 'SIGTERM'), 0, child.output());
    }
  });
});
