import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { awpVersusPeers, benchPeers, redact, runPeerProcess } from '../../scripts/bench/peers.js';
import { stepRounds, workflowId } from '../../bench/peers/workload.js';
import { newId } from '../../shared/ids.js';
import { harness } from '../support/harness.js';
import { ROOT } from '../support/spawn.js';

/**
 * The peers bench without the peers' packages: stand-in peers written to a
 * temp folder run through the real harness (bench/peers/harness.ts), the
 * real child-process runner and the real database set-up, so a broken,
 * lying, hanging or leaking peer is seen to end as `{ error }` while the
 * others still report. No registry is asked (the install that fails has no
 * lockfile, which npm refuses before any download).
 */
const harnessUrl = pathToFileURL(path.join(ROOT, 'bench/peers/harness.js')).href;
const workloadUrl = pathToFileURL(path.join(ROOT, 'bench/peers/workload.js')).href;

const FAKES: Record<string, string> = {
  // An engine that does the work itself, in process: what a healthy peer reports.
  ok: `import { runPeer } from '${harnessUrl}';
import { expectedDigest } from '${workloadUrl}';
await runPeer(async (cfg) => ({ once: async (id) => expectedDigest(id, cfg.rounds), stop: async () => {},
    setup: { engine: 'fake' } }));`,
  // Skips a step: the harness must catch it rather than time it.
  wrong: `import { runPeer } from '${harnessUrl}';
import { stepWork } from '${workloadUrl}';
await runPeer(async (cfg) => ({ once: async (id) => stepWork(id, 'one', '', cfg.rounds), stop: async () => {},
    setup: {} }));`,
  crash: `console.error('peer boom: cannot load its library'); process.exit(3);`,
  hang: `setInterval(() => {}, 1000);`,
  // Fails naming its connection string, password included.
  leak: `import { runPeer } from '${harnessUrl}';
await runPeer(async (cfg) => { throw new Error('cannot connect to ' + cfg.databaseUrl); });`,
};

function peersDir(opts: { installed: boolean }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-peers-test-'));
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'fake-peers', private: true, type: 'module' }),
  );
  if (opts.installed) {
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.writeFileSync(path.join(dir, 'node_modules/.package-lock.json'), '{}');
  }
  for (const [name, code] of Object.entries(FAKES)) fs.writeFileSync(path.join(dir, `${name}.ts`), code);
  return dir;
}

describe('bench peers (scripts/bench/peers.ts)', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const prefix = `awp_peer_t${randomBytes(3).toString('hex')}_`;

  it(
    'reports each peer that fails as { error } and still measures the ones after it, each in a database of its ' +
      'own, dropped afterwards',
    async () => {
      const dir = peersDir({ installed: true });
      dirs.push(dir);
      const { databaseUrl, redisUrl } = harness.services;
      const out = (await benchPeers(
        { databaseUrl, redisUrl },
        { dir, peers: ['crash', 'wrong', 'ok'], n: 3, total: 8, databasePrefix: prefix, echo: false },
      )) as Record<string, any>;

      assert.match(out.crash.error, /peer crash exited with 3: peer boom: cannot load its library/);
      assert.match(out.wrong.error, /returned [0-9a-f]{64}, not the 3-step digest/);
      assert.equal(out.ok.error, undefined);
      assert.equal(out.ok.latency.n, 3);
      assert.ok(out.ok.latency.p50 > 0 && out.ok.perSec > 0);
      assert.deepEqual(
        { total: out.ok.total, inFlight: out.ok.inFlight, stepHashes: out.ok.stepHashes, setup: out.ok.setup },
        { total: 8, inFlight: 32, stepHashes: 100, setup: { engine: 'fake' } },
      );
      // The fake stores nothing; a real peer's rows per workflow are counted the same way.
      assert.deepEqual(
        { workflows: out.ok.stored.workflows, rows: out.ok.stored.rows },
        { workflows: 5 + 3 + 8, rows: 0 },
      );
      assert.equal(out.computation.stepHashes, 100);
      assert.equal(out.computation.threeSteps.n, 3);

      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      const left = await admin.query('select datname from pg_database where datname like $1', [`${prefix}%`]);
      await admin.end();
      assert.deepEqual(left.rows, []);
    },
  );

  it(
    "reports every peer as { error } naming npm's reason " + 'when their packages cannot be installed, and returns',
    async () => {
      const dir = peersDir({ installed: false });
      dirs.push(dir);
      const out = (await benchPeers(harness.services, {
        dir,
        peers: ['ok', 'wrong'],
        n: 2,
        total: 2,
        databasePrefix: prefix,
        echo: false,
      })) as Record<string, any>;
      for (const name of ['ok', 'wrong'])
        assert.match(
          out[name].error,
          new RegExp(
            [
              String.raw`^npm ci --prefix .* failed \(1\): npm error code EUSAGE; `,
              'npm error The `npm ci` command can only install with an existing package-lock\\.json',
            ].join(''),
          ),
        );
      assert.ok(out.computation, 'the computation is still timed');
    },
  );

  it('ends a peer that never finishes and says so', async () => {
    const dir = peersDir({ installed: true });
    dirs.push(dir);
    const out = await runPeerProcess('hang', {
      dir,
      databaseUrl: harness.services.databaseUrl,
      redisUrl: harness.services.redisUrl,
      n: 1,
      total: 1,
      timeoutMs: 1500,
      echo: false,
    });
    assert.deepEqual(out, { error: 'peer hang exited with -1: timed out after 1500 ms' });
  });

  it("never passes a connection password through a peer's error", async () => {
    const dir = peersDir({ installed: true });
    dirs.push(dir);
    const databaseUrl = 'postgres://bench:s3cret%2Fpw@127.0.0.1:1/awp_peer_x';
    const out = (await runPeerProcess('leak', {
      dir,
      databaseUrl,
      redisUrl: 'redis://:r3dis-pw@127.0.0.1:1',
      n: 1,
      total: 1,
      echo: false,
    })) as { error: string };
    assert.equal(out.error, 'cannot connect to postgres://bench:***@127.0.0.1:1/awp_peer_x');
    assert.equal(
      redact('a r3dis-pw b s3cret/pw', ['postgres://u:s3cret%2Fpw@h/d', 'redis://:r3dis-pw@h']),
      'a *** b ***',
    );
  });

  it("sets awp's identical-work run (not the hunt → resolve → resolve one) against each peer that has figures", () => {
    const runs = {
      awp3StepRun: { latency: { p50: 90, p99: 90 }, perSec: 10 },
      awpIdenticalWorkRun: { latency: { p50: 20, p99: 40 }, perSec: 100 },
    };
    const peers = { dbos: { latency: { p50: 10, p99: 20 }, perSec: 200 }, langgraph: { error: 'x' } };
    assert.deepEqual(awpVersusPeers(runs, peers), { dbos: { latencyP50: 2, latencyP99: 2, throughput: 0.5 } });
    assert.equal(awpVersusPeers({ awp3StepRun: runs.awp3StepRun }, peers), undefined);
    assert.equal(awpVersusPeers(undefined, peers), undefined);
  });

  it("gives peers awp's run id shape, so each step hashes a document as long as awp's benchmark step does", () => {
    assert.match(workflowId(), /^run_[0-9a-f]{32}$/);
    assert.equal(workflowId().length, newId('run').length);
    assert.throws(() => stepRounds({ BENCH_STEP_HASHES: '10001' }), /from 0 to 10,000/);
  });
});
