import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { repositoryFiles } from '../../jobs/environment/repo.js';
import { harness } from '../support/harness.js';
import { pollUntilRest } from '../support/runs.js';

const BACKEND = '/usr/lib/git-core/git-http-backend';
const USER = 'ci';
const PASSWORD = 'clone-pass-value-42';

/** Clone directories left in the temp dir (each clone removes its own). */
const clones = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith('awp-clone-')).length;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });

/** A bare repository under `root` named `name`, made from `files`. */
function bareRepo(root: string, name: string, files: Record<string, string | Buffer>): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-work-'));
  for (const [p, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, p)), { recursive: true });
    fs.writeFileSync(path.join(work, p), content);
  }
  git(work, 'init', '-q', '-b', 'main');
  git(work, 'add', '.');
  git(work, 'commit', '-qm', 'init');
  git(root, 'clone', '-q', '--bare', work, name);
  fs.rmSync(work, { recursive: true, force: true });
}

/** git http-backend as CGI behind a tiny HTTP server checking Basic auth (and one path that never answers). */
async function gitServer(root: string) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://git');
    if (url.pathname.startsWith('/hang/')) return; // never answers: the clone's time bound ends it
    const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
      return res.end('unauthorized');
    }
    const cgi = spawn(BACKEND, [], {
      env: {
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method,
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: USER,
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let sentHead = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (sentHead) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const [k, ...v] = line.split(':');
        if (k!.toLowerCase() === 'status') status = Number.parseInt(v.join(':').trim(), 10);
        else headers[k!] = v.join(':').trim();
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
      sentHead = true;
    });
    cgi.on('close', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('environment from a repository (git over HTTP → queue → worker)', function () {
  this.timeout(60_000);
  let root: string;
  let srv: Awaited<ReturnType<typeof gitServer>>;
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-git-'));
    bareRepo(root, 'shop.git', {
      'package.json': JSON.stringify({
        name: 'shop',
        engines: { node: '>=20.19' },
        dependencies: { express: '^4.19.0', pg: '^8.11.0' },
        scripts: { build: 'tsc' },
      }),
      'package-lock.json': JSON.stringify({
        lockfileVersion: 3,
        packages: { 'node_modules/express': { version: '3.21.2' }, 'node_modules/pg': { version: '8.11.3' } },
      }),
      '.nvmrc': '18\n',
      '.env.example': 'DATABASE_URL=\nAPI_TOKEN=\n',
    });
    bareRepo(root, 'big.git', { 'blob.bin': randomBytes(400_000) });
    srv = await gitServer(root);
  });
  after(async () => {
    srv.server.closeAllConnections();
    await new Promise((r) => srv.server.close(r));
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function account(password = PASSWORD) {
    const a = await harness.account();
    const stored = await harness.call('POST', '/v1/bridge/credentials', {
      token: a.token,
      body: { name: 'git', kind: 'basic', value: { username: USER, password } },
    });
    assert.equal(stored.status, 201, stored.text);
    return a;
  }

  const run = (token: string, repoUrl: string) =>
    harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: {
        request: 'set up the development environment',
        domainRoute: ['environment'],
        metadata: { repoUrl, repoCredential: 'cred:git' },
      },
    });

  it('clones the repository shallow with the vault credential, reads it, reports pins outside ranges', async () => {
    const a = await account();
    const left = clones();
    const started = await run(a.token, `${srv.url}/shop.git`);
    assert.ok([200, 202].includes(started.status), started.text);
    const rested = await pollUntilRest(a.token, started.body.runId);
    const env = rested.result.results.environment;
    assert.equal(env.repository.filesCloned, 4);
    assert.ok(env.runtimes.some((r: any) => r.name === 'node'));
    assert.ok(env.services.some((s: any) => s.name === 'postgres'));
    const mismatches = env.pinMismatches.map((m: any) => `${m.name} ${m.pinned} ${m.range}`);
    assert.deepEqual(mismatches.sort(), ['express 3.21.2 ^4.19.0', 'node 18 >=20.19']);
    assert.equal(env.readiness, 'needsInput');
    // The clone is gone, and the credential is in no answer.
    assert.equal(clones(), left);
    assert.doesNotMatch(JSON.stringify(rested), new RegExp(PASSWORD));
  });

  it('a wrong credential fails the step naming the cause (HTTP 401), without the secret', async () => {
    const a = await account('not-the-password-77');
    const started = await run(a.token, `${srv.url}/shop.git`);
    const rested = await pollUntilRest(a.token, started.body.runId);
    assert.equal(rested.status, 'failed');
    const text = JSON.stringify(rested);
    assert.match(text, /refused the credential \(HTTP 401\)/);
    assert.doesNotMatch(text, /not-the-password-77/);
  });

  it('a clone past the size bound or the time bound is killed and its directory removed', async () => {
    const a = await account();
    const left = clones();
    const small = { ...harness.deps, config: { ...harness.config, ENVIRONMENT_CLONE_MAX_BYTES: 100_000 } };
    await assert.rejects(repositoryFiles(small, a.accountId, `${srv.url}/big.git`, 'cred:git'), /larger than 100000/);
    const quick = { ...harness.deps, config: { ...harness.config, ENVIRONMENT_CLONE_TIMEOUT_MS: 500 } };
    await assert.rejects(
      repositoryFiles(quick, a.accountId, `${srv.url}/hang/x.git`, 'cred:git'),
      /longer than 500 ms/,
    );
    assert.equal(clones(), left);
    await assert.rejects(repositoryFiles(harness.deps, a.accountId, 'ftp://example.com/x.git', null), /must use https/);
  });
});
