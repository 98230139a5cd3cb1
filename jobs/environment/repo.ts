/**
 * A project read from its repository (issue 33): `repoUrl` (https; http only with AWP_ALLOW_PRIVATE_EGRESS) cloned
 * shallow (`git clone --depth 1 --single-branch --no-tags`) into a temporary directory that is removed afterwards,
 * then read as the files a caller sends are read. The credential (a vault `cred:` reference: `basic` as HTTP Basic,
 * any other kind as a bearer token) reaches git as an `http.extraHeader` through git's environment configuration
 * (GIT_CONFIG_COUNT/KEY/VALUE), never in argv (where `ps` shows it) or in the URL, and is never logged. The clone is
 * bounded: killed past ENVIRONMENT_CLONE_TIMEOUT_MS, or once its directory grows past ENVIRONMENT_CLONE_MAX_BYTES;
 * git prompts for nothing, follows no redirect to another protocol and runs no hook of the repository.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Deps } from '../../shared/deps.js';
import { AppError, invalidPayload, policyViolation } from '../../shared/errors.js';
import { checkEgressUrl } from '../../shared/http/egress.js';
import { resolveReference } from '../credentials/index.js';

/** Files read from a clone: manifests and the like, not the code (the analyzers read names, versions, examples). */
const MAX_FILE_BYTES = 512 * 1024;
const MAX_FILES = 2000;
const SKIP_DIRS = new Set(['.git', 'node_modules', 'vendor', '.venv', 'venv', 'dist', 'build', 'target']);

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const e of entries)
    if (e.isFile()) total += (await fs.stat(path.join(e.parentPath, e.name)).catch(() => ({ size: 0 }))).size;
  return total;
}

/** What git said, reduced to a cause a client can act on (its stderr may echo the URL, never shown). */
function cloneFailure(stderr: string): AppError {
  if (/\b401\b|Authentication failed|could not read Username|terminal prompts disabled/i.test(stderr))
    return policyViolation('the repository refused the credential (HTTP 401): check the cred: reference', {
      problem: 'repoAuth',
    });
  if (/\b403\b/.test(stderr))
    return policyViolation('the repository refused access (HTTP 403)', { problem: 'repoForbidden' });
  if (/\b404\b|not found|does not appear to be a git repository/i.test(stderr))
    return policyViolation('no repository at repoUrl (HTTP 404)', { problem: 'repoNotFound' });
  return new AppError('unavailable', 'the repository could not be cloned; try again', { problem: 'repoUnreachable' });
}

/** The Authorization header value of the credential: `user:password` (basic) as Basic, anything else as Bearer. */
async function authHeader(deps: Pick<Deps, 'db' | 'config' | 'redis'>, accountId: string, ref: string) {
  const secret = await resolveReference(deps, { accountId, allowEnv: false, via: 'environment.clone' }, ref);
  return secret.includes(':') && !/\s/.test(secret)
    ? `Basic ${Buffer.from(secret).toString('base64')}`
    : `Bearer ${secret}`;
}

/** Clones the repository shallow and bounded; the directory is the caller's to remove. */
async function clone(deps: Pick<Deps, 'config'>, url: string, dir: string, header: string | null): Promise<void> {
  const { ENVIRONMENT_CLONE_MAX_BYTES: maxBytes, ENVIRONMENT_CLONE_TIMEOUT_MS: timeoutMs } = deps.config;
  const config: Array<[string, string]> = [
    ['core.hooksPath', '/dev/null'],
    ['credential.helper', ''],
    ['http.followRedirects', 'false'],
    ...(header ? ([['http.extraHeader', `Authorization: ${header}`]] as Array<[string, string]>) : []),
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ALLOW_PROTOCOL: deps.config.AWP_ALLOW_PRIVATE_EGRESS ? 'https:http' : 'https',
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(
      config.flatMap(([k, v], i) => [
        [`GIT_CONFIG_KEY_${i}`, k],
        [`GIT_CONFIG_VALUE_${i}`, v],
      ]),
    ),
  };
  const target = path.join(dir, 'repo');
  const child = spawn('git', ['clone', '--depth', '1', '--single-branch', '--no-tags', '--', url, target], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group: git runs git-remote-https as a child, and a kill must reach both.
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  let killed: AppError | null = null;
  const kill = (why: AppError) => {
    killed ??= why;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(
    () =>
      kill(policyViolation(`the clone took longer than ${timeoutMs} ms and was stopped`, { problem: 'repoTimeout' })),
    timeoutMs,
  );
  const sizes = setInterval(() => {
    void dirBytes(dir).then((bytes) => {
      if (bytes > maxBytes)
        kill(policyViolation(`the repository is larger than ${maxBytes} bytes`, { problem: 'repoTooLarge' }));
    });
  }, 100);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  clearInterval(sizes);
  if (killed) throw killed;
  if (code !== 0) throw cloneFailure(stderr);
  if ((await dirBytes(dir)) > maxBytes)
    throw policyViolation(`the repository is larger than ${maxBytes} bytes`, { problem: 'repoTooLarge' });
}

/** The clone's text files by relative path (skipping dependencies and build output), as `metadata.files` is. */
async function readTree(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      if (Object.keys(files).length >= MAX_FILES) return;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(full);
      } else if (e.isFile() && (await fs.stat(full)).size <= MAX_FILE_BYTES) {
        const text = await fs.readFile(full, 'utf8');
        if (!text.includes('\u0000')) files[path.relative(root, full)] = text;
      }
    }
  };
  await walk(root);
  return files;
}

/** The repository's files: cloned, read, and the clone removed whatever happened. */
export async function repositoryFiles(
  deps: Pick<Deps, 'db' | 'config' | 'redis'>,
  accountId: string,
  repoUrl: string,
  credential: string | null,
): Promise<Record<string, string>> {
  const url = checkEgressUrl(repoUrl, { allowPrivate: deps.config.AWP_ALLOW_PRIVATE_EGRESS, requireHttps: true });
  if (url.search || url.hash) throw invalidPayload('repoUrl takes no query or fragment', { path: '/repoUrl' });
  const header = credential ? await authHeader(deps, accountId, credential) : null;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'awp-clone-'));
  try {
    await clone(deps, url.toString(), dir, header);
    return await readTree(path.join(dir, 'repo'));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
