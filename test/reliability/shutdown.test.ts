import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

/**
 * Each Procfile process starts, connects and, on SIGTERM, stops and exits
 * by itself with code 0: lifecycle.ts never calls process.exit on the happy
 * path, so an open handle would keep the process alive and fail the test.
 */
describe('process lifecycle', function () {
  this.timeout(60_000);
  const env = () => ({
    DATABASE_URL: harness.config.DATABASE_URL!,
    REDIS_URL: harness.config.REDIS_URL!,
    QUEUE_PREFIX: harness.config.QUEUE_PREFIX,
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '10000', // shares the suite's Redis and prefix, so it shares the anonymous budget too
  });

  // The Procfile's long-running processes, run exactly as it says (compiled by `npm run build`, which `npm test` runs
  // first).
  const procfile = fs
    .readFileSync(path.join(ROOT, 'Procfile'), 'utf8')
    .split('\n')
    .filter((l) => /^(web|worker|delivery|clock):/.test(l));
  assert.equal(procfile.length, 4, 'web, worker, delivery and clock in the Procfile');
  for (const line of procfile) {
    const entry = /^\w+: node (\S+)$/.exec(line)?.[1] ?? assert.fail(`unexpected Procfile line: ${line}`);
    it(`${line} shuts down cleanly on SIGTERM with no open handles`, async () => {
      const child = spawnEntry(entry, env());
      await waitForOutput(child, (out) => out.includes('"msg":"started"'));
      if (line.startsWith('web:')) {
        const url = /"url":"(http:[^"]+)"/.exec(child.output())![1]!;
        assert.equal((await harness.call('GET', '/healthz', {}, url)).status, 200);
      }
      const code = await stopWith(child, 'SIGTERM');
      assert.equal(code, 0, child.output());
      assert.match(child.output(), /shutting down/);
    });
  }

  it('scripts/start.ts runs all processes in one and uses the configured URLs', async () => {
    const child = spawnEntry('scripts/start.ts', env());
    const out = await waitForOutput(child, (o) => o.includes('web listening'));
    assert.ok(!out.includes('local redis started'), 'starts no local Redis when REDIS_URL is set');
    const url = /"url":"(http:[^"]+)"/.exec(out)![1]!;
    const res = await harness.call('GET', '/v1/manifest', {}, url);
    assert.equal(res.status, 200);
    assert.equal(await stopWith(child, 'SIGTERM'), 0, child.output());
  });

  it('the admin CLI mints a token that opens Bull Board; a normal token gets 403', async () => {
    const child = spawnEntry(
      'scripts/admin-token.ts',
      { DATABASE_URL: harness.config.DATABASE_URL!, LOG_LEVEL: 'silent' },
      ['ops'],
    );
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    assert.equal(await new Promise((resolve) => child.once('close', resolve)), 0, child.output());
    // stdout is the bare token alone (what it is goes to stderr), so `TOKEN=$(npm run -s token:admin)` works.
    assert.match(stdout, /^awp_[A-Za-z0-9_-]{43}\n$/);
    const token = stdout.trim();
    const board = await harness.call('GET', '/admin/queues', { token });
    assert.equal(board.status, 200);
    assert.match(board.text, /<html/i);
    const api = await harness.call('GET', '/admin/queues/api/queues?activeQueue=hunt&page=1&jobsPerPage=10', { token });
    assert.equal(api.status, 200);
    assert.ok(Array.isArray(api.body.queues));
    const user = await harness.account();
    assert.equal((await harness.call('GET', '/admin/queues', { token: user.token })).status, 403);
    assert.equal((await harness.call('GET', '/admin/queues')).status, 401);
  });
});
