import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { harness } from '../support/harness.js';
import { startReceiver } from '../support/receiver.js';
import { seedCatalog } from '../support/runs.js';
import { ROOT } from '../support/spawn.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `awp …` as a user runs it: the repository's bin in its own process, with only the environment given. */
function awp(args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/awp.js'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('CLI: npx awp against the service', function () {
  this.timeout(120_000);
  let token: string;
  let home: string;
  let env: Record<string, string>;
  before(async () => {
    let accountId: string;
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
    home = await mkdtemp(path.join(os.tmpdir(), 'awp-cli-'));
    env = { HOME: home, AWP_URL: harness.url, AWP_TOKEN: token };
  });
  after(() => rm(home, { recursive: true, force: true }));

  it('run: live progress (each step starting and finishing), then the final status and proof card', async () => {
    const ran = await awp(['run', '--domains', 'hunt,resolve', 'find the cheapest espresso machine'], env);
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    const lines = ran.stdout.trim().split('\n');
    const runId = lines[0]!.match(/^run (run_\S+) submitted$/)?.[1];
    assert.ok(runId, lines[0]);
    const steps = lines.filter((l) => l.startsWith('step '));
    assert.deepEqual(steps, [
      'step hunt started',
      'step hunt finished: completed',
      'step resolve started',
      'step resolve finished: completed',
    ]);
    const run = (await harness.call('GET', `/v1/runs/${runId}`, { token })).body.run;
    assert.equal(run.status, 'ready');
    assert.equal(lines.at(-1), `status ready, proof card ${run.proofCardId}`);
  });

  it('runs ls and runs show read the same runs as the API; runs tail replays a finished run', async () => {
    const ls = await awp(['runs', 'ls', '--json', '--limit', '1'], env);
    assert.equal(ls.code, 0, ls.stderr);
    const listed = JSON.parse(ls.stdout.trim());
    const show = await awp(['runs', 'show', listed.runId], env);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`^run ${listed.runId}: ${listed.status}$`, 'm'));
    const tail = await awp(['runs', 'tail', listed.runId, '--format', 'sse'], env);
    assert.equal(tail.code, 0, tail.stderr);
    assert.match(tail.stdout.trim().split('\n').at(-1)!, /^status ready, proof card /);
  });

  it('an unknown run: exit code 3 and the service’s message', async () => {
    const ran = await awp(['runs', 'show', 'run_doesnotexist'], env);
    assert.equal(ran.code, 3);
    assert.match(ran.stderr, /^awp: notFound \(HTTP 404\): .*\(request \S+\)$/m);
    assert.equal(ran.stdout, '');
  });

  it('no token anywhere: exit code 2 and a message saying where to put one', async () => {
    const ran = await awp(['runs', 'ls'], { HOME: home, AWP_URL: harness.url });
    assert.equal(ran.code, 2);
    assert.match(ran.stderr, /no API token: set AWP_TOKEN, or put .* in .*\.config\/awp\/config\.json/);
  });

  it('reads the URL and token from ~/.config/awp/config.json when the environment has none', async () => {
    const dir = path.join(home, 'cfg');
    await mkdir(path.join(dir, 'awp'), { recursive: true });
    await writeFile(path.join(dir, 'awp', 'config.json'), JSON.stringify({ url: harness.url, token }));
    const ran = await awp(['tokens', 'ls'], { HOME: home, XDG_CONFIG_HOME: dir });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^tok_\S+ +active/m);
  });

  it('webhooks test: records a test event and reports its delivery to the matching subscription', async () => {
    let secret = '';
    const receiver = await startReceiver(() => [secret]);
    try {
      const sub = await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: receiver.url, events: ['awp.*'] },
      });
      secret = sub.body.secret;
      const ran = await awp(['webhooks', 'test'], env);
      assert.equal(ran.code, 0, ran.stderr + ran.stdout);
      assert.match(ran.stdout, new RegExp(`^subscription ${sub.body.subscription.subscriptionId}: completed`, 'm'));
      assert.equal(receiver.received.length, 1, 'delivered once, its signature verified by the receiver');
      assert.equal(receiver.received[0]!.body.type, 'awp.cli.test');
    } finally {
      await receiver.stop();
    }
  });

  it('cancel of a finished run is refused: exit 3 with the conflict', async () => {
    const submitted = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'audit this', domainRoute: ['resolve'] },
    });
    const ran = await awp(['runs', 'cancel', submitted.body.runId], env);
    assert.equal(ran.code, 3);
    assert.match(ran.stderr, /conflict \(HTTP 409\)/);
  });
});
