import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { harness } from '../support/harness.js';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';
import { readLocalInstance, withLocalInstance, writeLocalInstance } from '../../scripts/support/local-instance.js';

/** Runs an operator script to its end: its exit code, stdout alone, and everything it printed. */
async function runScript(entry: string, env: Record<string, string>) {
  const child = spawnEntry(entry, env);
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, output: child.output() };
}

/**
 * The README's first steps: `npm start` with no DATABASE_URL or REDIS_URL starts its own Redis and Postgres, and
 * `TOKEN=$(npm run -s token:admin)` in another shell (no DATABASE_URL there either) finds them.
 */
describe('npm start on its own services: the operator scripts find them', function () {
  this.timeout(240_000);
  let dataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-local-start-'));
    fs.chmodSync(dataDir, 0o755); // the postgres user (initdb under root) must reach its folder inside
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  // Neither shell has the URLs nor a master key: `npm start` makes them under DATA_DIR, the scripts read them there.
  const local = () => ({ DATABASE_URL: '', REDIS_URL: '', AWP_MASTER_KEY: '', DATA_DIR: dataDir, LOG_LEVEL: 'info' });

  it('token:admin and signing-key:rotate need no DATABASE_URL while it runs, and say what to do after', async () => {
    const file = path.join(dataDir, 'local.json');
    const start = spawnEntry('scripts/start.ts', {
      ...local(),
      PORT: '0',
      HOST: '127.0.0.1',
      QUEUE_PREFIX: `awp-local-start-${process.pid}`,
    });
    try {
      const out = await waitForOutput(start, (o) => o.includes('local.json'), 200_000);
      const url = /"url":"(http:[^"]+)"/.exec(out)![1]!;
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'it may hold credentials: its owner reads it only');
      const record = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.deepEqual([record.pid, /^postgres:/.test(record.DATABASE_URL)], [start.pid, true]);

      const minted = await runScript('scripts/admin-token.ts', local());
      assert.equal(minted.code, 0, minted.output);
      assert.match(minted.stdout, /^awp_[A-Za-z0-9_-]{43}\n$/);
      const token = minted.stdout.trim();
      const runtime = await harness.call('GET', '/runtime', { token }, url);
      assert.equal(runtime.status, 200, 'the token is one the running service accepts');
      assert.equal((await harness.call('GET', '/admin/queues', { token }, url)).status, 200);

      // The rotated key is sealed with the master key the script found under DATA_DIR: the service signs with it.
      const rotated = await runScript('scripts/rotate-signing-key.ts', local());
      assert.equal(rotated.code, 0, rotated.output);
      const { kid } = JSON.parse(rotated.stdout.trim().split('\n').pop()!);
      const sandbox = await harness.call(
        'POST',
        '/v1/orchestrator/run',
        { body: { request: 'find an espresso machine under $200', conversationId: 'sandbox_local' } },
        url,
      );
      assert.equal(sandbox.status, 200, sandbox.text);
      assert.equal(sandbox.headers.get('x-sandbox-session')?.split('.')[1], kid);
    } finally {
      assert.equal(await stopWith(start, 'SIGTERM', 60_000), 0, start.output());
    }
    assert.equal(fs.existsSync(file), false, 'removed on shutdown');
    const after = await runScript('scripts/admin-token.ts', local());
    assert.equal(after.code, 1);
    assert.match(after.output, /no running `npm start` was found/);
  });

  it('a file whose process is gone is ignored; variables that are set win over the file', () => {
    const remove = writeLocalInstance(dataDir, { DATABASE_URL: 'postgres://local/awp', REDIS_URL: 'redis://local' });
    const env = { DATA_DIR: dataDir };
    assert.equal(withLocalInstance(env).DATABASE_URL, 'postgres://local/awp');
    assert.equal(withLocalInstance({ ...env, DATABASE_URL: 'postgres://mine/x' }).DATABASE_URL, 'postgres://mine/x');
    assert.equal(withLocalInstance({ ...env, DATABASE_URL: 'postgres://mine/x' }).REDIS_URL, 'redis://local');
    const file = path.join(dataDir, 'local.json');
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    // A pid above the kernel's pid_max (2^22) names no process.
    fs.writeFileSync(file, JSON.stringify({ ...record, pid: 2 ** 22 + 1 }));
    assert.equal(readLocalInstance(dataDir), null);
    assert.equal(withLocalInstance(env).DATABASE_URL, undefined);
    remove();
    assert.equal(fs.existsSync(file), true, "another process's file is not this one's to remove");
  });
});
