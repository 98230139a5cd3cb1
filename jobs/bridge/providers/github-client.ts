/**
 * GitHub's REST API through the official `@octokit/rest` client (issue 33): the connector's `endpoint` is the API's
 * base URL (https://api.github.com, a GitHub Enterprise Server's https://HOST/api/v3, a fake or Prism in tests), its
 * credential a token (a fine-grained or classic personal access token, or an installation token made elsewhere) or a
 * GitHub App: a `basic` credential whose username is `<appId>@<installationId>` and whose password is the App's PEM
 * private key, from which an installation token is made (and kept in this process until five minutes before it
 * expires). Every request goes out through the guarded egress client; a redirect (a job's log is a 302 to a signed
 * blob URL) is followed there too, without the Authorization header once it leaves the API's origin.
 */
import { createSign } from 'node:crypto';
import type { Octokit } from '@octokit/rest';
import { egressFetch, EgressRefused } from '../../../shared/http/egress.js';
import type { ProviderCallContext, ProviderResult } from './adapter.js';

const TIMEOUT_MS = 20_000;
/** A workflow run list or a job list is tens of kB; a job's log can be large: read up to this much of it. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
const MAX_REDIRECTS = 2;
/** A rate limit whose wait is at most this long is waited out inline (twice at most); a longer one is queued. */
const INLINE_WAIT_MS = 5_000;
const INLINE_TRIES = 2;
/** GitHub's advice for a secondary limit that names no wait: "wait for at least one minute before retrying". */
const SECONDARY_WAIT_MS = 60_000;

export type ProviderError = NonNullable<ProviderResult['error']>;
/** What a call outside a bridge action has (providerContextFor): the connector, its credential, the deps. */
export type GithubContext = Pick<ProviderCallContext, 'connector' | 'secret' | 'deps'>;

/** The SDK's fetch, done by the egress client (pinned resolver, range checks, limits), redirects followed by hand. */
function egressFetchFor(allowPrivate: boolean) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    let target = String(url);
    const origin = new URL(target).origin;
    for (let hop = 0; ; hop++) {
      const res = await egressFetch(allowPrivate, target, {
        method: (init?.method ?? 'GET') as 'GET' | 'POST',
        headers,
        body: typeof init?.body === 'string' ? init.body : undefined,
        signal: init?.signal ?? undefined,
        timeoutMs: TIMEOUT_MS,
        maxBytes: MAX_ANSWER_BYTES,
        oversize: 'truncate',
      });
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location && hop < MAX_REDIRECTS) {
        target = new URL(location, target).toString();
        // The token is GitHub's: a signed blob URL elsewhere needs none, and must not be handed one.
        if (new URL(target).origin !== origin) delete headers.authorization;
        continue;
      }
      const empty = res.status === 204 || res.status === 205 || res.status === 304;
      return new Response(empty ? null : new Uint8Array(res.body), { status: res.status, headers: res.headers });
    }
  };
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * A client for the connector's endpoint with `auth` (a token or an App's JWT); the egress client does its requests.
 * The SDK is loaded on the first client: a process that never calls GitHub never holds it.
 */
export async function octokitFor(endpoint: string, auth: string, allowPrivate: boolean): Promise<Octokit> {
  const { Octokit } = await import('@octokit/rest');
  const client = new Octokit({
    auth,
    baseUrl: endpoint.replace(/\/+$/, ''),
    userAgent: 'awp',
    log: quiet,
    request: { fetch: egressFetchFor(allowPrivate) },
  });
  // GitHub's media type first, then plain JSON: what GitHub answers with, and the only type its description lists.
  client.hook.before('request', (options) => {
    if (options.headers.accept === 'application/vnd.github.v3+json')
      options.headers.accept = 'application/vnd.github+json, application/json;q=0.9';
  });
  return client;
}

/** A client for the connector with its token (or an App installation token made from its key). */
export async function githubClient(ctx: GithubContext): Promise<Octokit> {
  if (!ctx.secret) throw new TypeError('github: the connector has no credential (a token or a GitHub App key)');
  const allowPrivate = ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS;
  const token = await githubToken(ctx.connector.endpoint, ctx.secret, allowPrivate);
  return octokitFor(ctx.connector.endpoint, token, allowPrivate);
}

/** A GitHub App credential as stored: `<appId>@<installationId>:<PEM private key>` (a `basic` credential). */
export function appCredential(secret: string): { appId: string; installationId: number; privateKey: string } | null {
  const m = /^(\d+)@(\d+):(-----BEGIN [\s\S]+)$/.exec(secret);
  return m ? { appId: m[1]!, installationId: Number(m[2]), privateKey: m[3]! } : null;
}

/** The App's JWT (RS256, issued a minute in the past for clock drift, valid nine minutes: GitHub allows ten). */
export function appJwt(appId: string, privateKey: string, now = Date.now()): string {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const iat = Math.floor(now / 1000) - 60;
  const unsigned = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iat, exp: iat + 600, iss: appId })}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(privateKey).toString('base64url');
  return `${unsigned}.${signature}`;
}

/** Installation tokens made in this process, by endpoint, App and installation: each is good for an hour. */
const installationTokens = new Map<string, { token: string; renewAt: number }>();

/** The token requests are made with: the credential itself, or an installation token made from the App's key. */
export async function githubToken(endpoint: string, secret: string, allowPrivate: boolean): Promise<string> {
  const app = appCredential(secret);
  if (!app) return secret;
  const key = `${endpoint}|${app.appId}|${app.installationId}`;
  const kept = installationTokens.get(key);
  if (kept && kept.renewAt > Date.now()) return kept.token;
  const client = await octokitFor(endpoint, appJwt(app.appId, app.privateKey), allowPrivate);
  const made = await limited(() =>
    client.rest.apps.createInstallationAccessToken({ installation_id: app.installationId }),
  );
  const expires = Date.parse(made.data.expires_at) || Date.now() + 3_600_000;
  installationTokens.set(key, { token: made.data.token, renewAt: expires - 300_000 });
  return made.data.token;
}

/** What octokit throws for an answer that is not 2xx (its RequestError), read without importing its package. */
interface HttpFailure {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}
const isHttpFailure = (err: unknown): err is HttpFailure =>
  err instanceof Error && typeof (err as { status?: unknown }).status === 'number';

/** How long GitHub asks to wait, when `err` is a primary (x-ratelimit-remaining 0) or secondary rate limit. */
export function rateLimitWait(err: unknown, now = Date.now()): number | null {
  if (!isHttpFailure(err) || (err.status !== 403 && err.status !== 429)) return null;
  const h = err.response?.headers ?? {};
  const retryAfter = Number(h['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter * 1000;
  if (String(h['x-ratelimit-remaining']) === '0') {
    const reset = Number(h['x-ratelimit-reset']);
    return Number.isFinite(reset) ? Math.max(0, reset * 1000 - now) + 1000 : SECONDARY_WAIT_MS;
  }
  if (err.status === 429 || /secondary rate limit|abuse/i.test(err.message)) return SECONDARY_WAIT_MS;
  return null;
}

/** Thrown when GitHub's limit asks for a longer wait than is worth holding a worker for: the queue retries later. */
export class GithubRateLimited extends Error {
  constructor(readonly waitMs: number) {
    super(`GitHub's rate limit asks to wait ${Math.ceil(waitMs / 1000)} s`);
    this.name = 'GithubRateLimited';
  }
}

/** Runs a request, waiting out a short rate limit (Retry-After, x-ratelimit-reset) inline, a long one by throwing. */
export async function limited<T>(call: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await call();
    } catch (err) {
      const wait = rateLimitWait(err);
      if (wait === null) throw err;
      if (wait > INLINE_WAIT_MS || tries >= INLINE_TRIES) throw new GithubRateLimited(wait);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** GitHub's answer text, when it gave one (`{ message }`), for clients; it never echoes the token. */
function messageOf(err: HttpFailure): string {
  const data = err.response?.data as { message?: unknown } | undefined;
  return typeof data?.message === 'string' ? data.message.slice(0, 300) : err.message.slice(0, 300);
}

/** A thrown SDK error → the service's answer: transient only for limits, GitHub's 5xx and no connection. */
export function githubFailure(err: unknown): ProviderError {
  if (err instanceof GithubRateLimited)
    return { code: 'rateLimited', message: `${err.message}; retried then`, transient: true, retryAfterMs: err.waitMs };
  if (err instanceof EgressRefused || (err as { cause?: unknown })?.cause instanceof EgressRefused)
    return { code: 'egressRefused', message: `GitHub endpoint refused: ${(err as Error).message}`, transient: false };
  if (!isHttpFailure(err)) {
    if (err instanceof Error && /fetch|connect|socket|timeout|network/i.test(`${err.name} ${err.message}`))
      return { code: 'connection', message: 'GitHub could not be reached; retried later', transient: true };
    throw err;
  }
  // octokit reports a request that got no answer (refused, reset, timed out) as a 500 without a response.
  if (!err.response)
    return { code: 'connection', message: 'GitHub could not be reached; retried later', transient: true };
  const said = messageOf(err);
  switch (err.status) {
    case 401:
      return { code: 'badCredentials', message: "GitHub refused the connector's token (401)", transient: false };
    case 403:
      return { code: 'forbidden', message: `the token may not do this (403: ${said})`, transient: false };
    case 404:
      return {
        code: 'notFound',
        message: `GitHub knows no such repository, workflow or run, or the token cannot see it (404)`,
        transient: false,
      };
    case 409:
      return { code: 'conflict', message: `GitHub refused it in the state it is in (409: ${said})`, transient: false };
    case 422:
      return { code: 'invalid', message: `GitHub refused the request (422: ${said})`, transient: false };
    default:
      if (err.status >= 500)
        return { code: 'githubUnavailable', message: `GitHub answered ${err.status}; retried later`, transient: true };
      return { code: `http${err.status}`, message: `GitHub answered ${err.status}: ${said}`, transient: false };
  }
}
