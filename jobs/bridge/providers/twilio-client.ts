/**
 * Twilio's official SDK (`twilio`) wired to the service: the connector's credential (`<AccountSid>:<AuthToken>`), its
 * endpoint as the API's base URL (https://api.twilio.com; a fake or Prism in tests, a regional edge), every request
 * through the guarded egress client, and Twilio's documented error codes in words a client can act on.
 */
import type twilio from 'twilio';
import { egressFetch, EgressRefused } from '../../../shared/http/egress.js';
import type { ConnectorRow } from '../connectors-repository.js';
import type { ProviderResult } from './adapter.js';
import { onFirstUse } from '../../../shared/on-first-use.js';

const TIMEOUT_MS = 20_000;
/** A Message or Call resource is about 1 kB; anything near this is not an answer we read. */
const MAX_ANSWER_BYTES = 256 * 1024;
/** Twilio's API credentials as a `basic` vault credential presents them: `<AccountSid>:<AuthToken>` (32 hex). */
const CREDENTIAL = /^(AC[0-9a-fA-F]{32}):([0-9a-fA-F]{32})$/;

export interface TwilioCredential {
  accountSid: string;
  authToken: string;
}

/** The vault's value of a Twilio connector's credential, or null when it is not `<AccountSid>:<AuthToken>`. */
export function twilioCredential(secret: string | null): TwilioCredential | null {
  const m = secret ? CREDENTIAL.exec(secret.trim()) : null;
  return m ? { accountSid: m[1]!, authToken: m[2]! } : null;
}

/** What the last answer said about waiting (Retry-After, in ms): the SDK's errors drop the headers. */
export interface TwilioClientState {
  retryAfterMs: number | null;
}

interface SdkRequest {
  method: string;
  uri: string;
  username?: string;
  password?: string;
  headers?: Record<string, string>;
  params?: Record<string, unknown>;
  data?: Record<string, unknown>;
}

/** `a=1&b=2&b=3`: Twilio's form encoding (a list repeats its key, as the SDK's own client sends it). */
function form(fields: Record<string, unknown> | undefined): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (v === undefined || v === null) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.append(k, String(one));
  }
  return out;
}

function retryAfterMs(value: string | undefined): number | null {
  if (!value) return null;
  const s = Number(value);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/**
 * The SDK's HTTP client, done by the egress client: Twilio's host (api.twilio.com, or a regional one the SDK names)
 * replaced by the connector's endpoint, the same pinned resolver, range checks and limits as every outbound call.
 */
function egressClient(endpoint: string, allowPrivate: boolean, state: TwilioClientState, signal?: AbortSignal) {
  const base = new URL(endpoint);
  return {
    async request(opts: SdkRequest) {
      const url = new URL(opts.uri);
      url.protocol = base.protocol;
      url.host = base.host;
      url.pathname = `${base.pathname.replace(/\/+$/, '')}${url.pathname}`;
      for (const [k, v] of form(opts.params)) url.searchParams.append(k, v);
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      delete headers.Connection;
      if (opts.username)
        headers.Authorization = `Basic ${Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64')}`;
      const method = opts.method.toUpperCase() as 'GET' | 'POST';
      const res = await egressFetch(allowPrivate, url.toString(), {
        method,
        headers,
        body: method === 'POST' ? form(opts.data).toString() : undefined,
        signal,
        timeoutMs: TIMEOUT_MS,
        maxBytes: MAX_ANSWER_BYTES,
        oversize: 'refuse',
      });
      state.retryAfterMs = retryAfterMs(res.headers['retry-after']);
      return { statusCode: res.status, body: res.text, headers: res.headers };
    },
  };
}

/** The SDK (about 24 MB), loaded on first use; `twilioSdk()` once loaded (a call loads it, callbacks `load`). */
const sdk = onFirstUse('the Twilio SDK', async (): Promise<typeof twilio> => (await import('twilio')).default);
export const loadTwilio = sdk.load;
export const twilioSdk = sdk.get;

/** A client for the connector: its endpoint, its Account SID and auth token, the egress client, no SDK retries. */
export async function twilioClient(
  connector: Pick<ConnectorRow, 'endpoint'>,
  credential: TwilioCredential,
  allowPrivate: boolean,
  signal?: AbortSignal,
): Promise<{ client: twilio.Twilio; state: TwilioClientState }> {
  const state: TwilioClientState = { retryAfterMs: null };
  const httpClient = egressClient(connector.endpoint, allowPrivate, state, signal);
  const client = (await loadTwilio())(credential.accountSid, credential.authToken, {
    httpClient: httpClient as unknown as twilio.RequestClient,
    autoRetry: false,
  });
  return { client, state };
}

/** Twilio's error codes (https://www.twilio.com/docs/api/errors) that a retry cannot fix, in a client's words. */
const PERMANENT: Record<number, [code: string, message: string]> = {
  20003: ['authentication', "Twilio refused the connector's Account SID or auth token"],
  20404: ['notFound', 'Twilio does not know the resource named'],
  21211: ['invalidNumber', "the 'To' number is not a valid phone number"],
  21214: ['invalidNumber', "the 'To' number cannot be reached by Twilio"],
  21217: ['invalidNumber', "the 'To' number does not appear to be a valid phone number"],
  13223: ['invalidNumber', "the 'To' number is not a valid phone number for a call"],
  13224: ['invalidNumber', "the 'To' number is not a valid phone number for a call"],
  21212: ['invalidFrom', "the 'From' number is not a valid phone number or alphanumeric sender"],
  21606: ['invalidFrom', "the 'From' number is not a Twilio number of this account able to send SMS"],
  21659: ['invalidFrom', "the 'From' number is not a Twilio number of this account"],
  21210: ['invalidFrom', "the 'From' number is not verified for this (trial) account"],
  21408: ['regionNotEnabled', 'the account may not send to this region (geo permissions in the Twilio console)'],
  21215: ['regionNotEnabled', 'the account may not call this region (geo permissions in the Twilio console)'],
  21610: ['unsubscribed', 'the recipient has unsubscribed from this sender (replied STOP)'],
  21612: ['unreachable', 'Twilio cannot route a message from this sender to this number'],
  21614: ['notMobile', "the 'To' number is not a mobile number: it cannot receive SMS"],
  21602: ['missingBody', 'the message has no body'],
  21617: ['bodyTooLong', 'the message is longer than 1,600 characters'],
};

/** Twilio's codes and statuses that a later attempt may pass: rate limits, its own outages. */
const TRANSIENT_CODES = new Set([20429, 20500, 20503, 14107, 30001]);

type ProviderError = NonNullable<ProviderResult['error']>;

/** A thrown SDK or egress error → the service's answer: transient only for what Twilio documents as worth a retry. */
export function twilioFailure(err: unknown, state: TwilioClientState): ProviderError {
  const retryAfter = state.retryAfterMs !== null ? { retryAfterMs: state.retryAfterMs } : {};
  if (err instanceof EgressRefused)
    return { code: 'egressRefused', message: `Twilio endpoint refused: ${err.message}`, transient: false };
  const e = err as { status?: number; code?: number; message?: string; moreInfo?: string };
  if (typeof e.status !== 'number') {
    // No answer at all (a connection reset, a timeout): the request may not have reached Twilio.
    return { code: 'connection', message: 'Twilio could not be reached; retried later', transient: true };
  }
  if (e.status === 429 || e.code === 20429)
    return { code: 'rateLimited', message: 'Twilio asked to slow down; retried later', transient: true, ...retryAfter };
  if (e.status >= 500 || (e.code !== undefined && TRANSIENT_CODES.has(e.code)))
    return {
      code: 'twilioUnavailable',
      message: 'Twilio had an internal error; retried later',
      transient: true,
      ...retryAfter,
    };
  const known = e.code !== undefined ? PERMANENT[e.code] : undefined;
  if (known) return { code: known[0], message: `${known[1]} (Twilio ${e.code})`, transient: false };
  if (e.status === 401) return { code: 'authentication', message: PERMANENT[20003]![1], transient: false };
  const said = e.message && !/^\[HTTP/.test(e.message) ? e.message : `Twilio answered ${e.status}`;
  return { code: e.code ? `twilio${e.code}` : `http${e.status}`, message: said, transient: false };
}
