import assert from 'node:assert/strict';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

/**
 * Stopping closes Redis clients, and a command still queued on one (BullMQ's own, say) is rejected with "Connection
 * is closed." where nothing may be listening. That rejection must not turn a clean stop into exit 1 (it did, once in
 * CI, after every part had stopped); nor may pg's stray ROLLBACK rejection when Postgres restarts under a running
 * process (the soak's delivery process died of it). Any other unhandled rejection still exits 1.
 */
describe('unhandled rejections while shutting down', function () {
  this.timeout(20_000);
  const run = async (kind: 'closed' | 'other' | 'early') => {
    const child = spawnEntry('test/fixtures/shutdown-rejection.ts', { LOG_LEVEL: 'info' }, [kind]);
    await waitForOutput(child, (out) => out.includes('"msg":"started"'));
    return { code: await stopWith(child, 'SIGTERM', 10_000), out: child.output() };
  };

  it('a command cut off by shutdown is logged and the exit stays 0', async () => {
    const { code, out } = await run('closed');
    assert.equal(code, 0, out);
    assert.match(out, /a command was cut off by shutdown/);
  });

  it('an outage error left unhandled by a driver while running is logged, and the process goes on', async () => {
    const { code, out } = await run('early');
    assert.equal(code, 0, out);
    assert.match(out, /a stray outage error/);
    assert.match(out, /"msg":"started"[\s\S]*"part":"leaky","msg":"stopped"/);
  });

  it('any other unhandled rejection is logged and the process exits 1', async () => {
    const { code, out } = await run('other');
    assert.equal(code, 1, out);
    assert.match(out, /unhandled rejection while shutting down/);
    assert.match(out, /"part":"leaky","msg":"stopped"/);
  });
});
