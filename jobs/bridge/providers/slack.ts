/**
 * Slack (issue 31), through the official `@slack/web-api` WebClient: `msg.chat` posts a message (`chat.postMessage`)
 * to a channel (`#ops`, `ops` or an id) or to a person (a DM opened with `conversations.open`, the person named by
 * user id or found by email with `users.lookupByEmail`). The connector's `endpoint` is the Web API's base URL
 * (https://slack.com/api; a fake or Prism in tests) given to the WebClient as `slackApiUrl`, its credential the bot
 * token (`xoxb-…`), its signing secret the app's signing secret (slack-callbacks.ts checks what Slack sends with it).
 * Every request goes out through the guarded egress client. The provider reference is `channel:ts`, the pair Slack
 * names a message by; a thread reply or a button click on it names it back (`inReplyTo`).
 *
 * Slack has no idempotency key for a post: the WebClient retries nothing itself (a retry is the queue's, with the
 * action's key), and only what Slack documents as not done is retried (429 and `ratelimited`, its 5xx and internal
 * errors, no connection); a post that timed out may have been made, which is why the queue's retry is the only one.
 */
import type {
  LogLevel,
  Logger,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
} from '@slack/web-api';
import { EgressRefused } from '../../../shared/http/egress.js';
import type { ProviderAdapter, ProviderCallContext, ProviderResult } from './adapter.js';
import { egressFetchFor } from './sdk-fetch.js';
import { slackCallbackAnswer, slackEvents, verifySlack, type SlackCallbackAnswer } from './slack-callbacks.js';

const TIMEOUT_MS = 20_000;
const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_BUTTONS = 5;

type ProviderError = NonNullable<ProviderResult['error']>;

/** The SDK logs through this: nothing (its debug lines would carry request bodies; failures are answered). */
const quiet: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => 'error' as LogLevel,
  setName: () => undefined,
};

/**
 * A WebClient for the connector: its endpoint as `slackApiUrl`, its bot token, the egress client, no own retries.
 * The SDK is loaded on the first client: a process that never posts to Slack never holds it.
 */
export async function slackClient(endpoint: string, token: string, allowPrivate: boolean): Promise<WebClient> {
  const { WebClient } = await import('@slack/web-api');
  return new WebClient(token, {
    slackApiUrl: endpoint.endsWith('/') ? endpoint : `${endpoint}/`,
    fetch: egressFetchFor(allowPrivate, {
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
    }) as unknown as typeof fetch,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: TIMEOUT_MS,
    allowAbsoluteUrls: false,
    logger: quiet,
  });
}

/** Slack's `ok:false` error codes in words a client can act on; the transient ones are retried. */
const CODE_MESSAGES: Record<string, string> = {
  channel_not_found: 'Slack knows no channel by that name or id (or the bot cannot see it)',
  not_in_channel: 'the bot is not a member of the channel: invite it first (/invite @your-bot)',
  is_archived: 'the channel is archived',
  msg_too_long: 'the message is too long for Slack',
  no_text: 'the message has no text',
  invalid_blocks: 'Slack refused the message blocks',
  restricted_action: "the workspace's settings do not let the bot post there",
  invalid_auth: "Slack refused the connector's bot token",
  not_authed: 'no bot token was sent: give the connector a credential',
  account_inactive: "the bot token's workspace or user is inactive",
  token_revoked: 'the bot token was revoked',
  token_expired: 'the bot token has expired',
  missing_scope: 'the bot token lacks a scope (chat:write; im:write for people; users:read.email for email)',
  users_not_found: 'no Slack user has that email address',
  user_not_found: 'Slack knows no user by that id',
  user_disabled: 'that Slack user is deactivated',
  cannot_dm_bot: 'a bot cannot be sent a direct message',
  ratelimited: 'Slack asked to slow down; retried later',
  internal_error: 'Slack had an internal error; retried later',
  fatal_error: 'Slack had an internal error; retried later',
  service_unavailable: 'Slack is unavailable; retried later',
  request_timeout: 'Slack timed out; retried later',
};
const TRANSIENT = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/** The SDK's errors by their documented `code` (its ErrorCode values), so that reading one needs no SDK loaded. */
const isSlack = <E extends { code: string }>(err: unknown, code: string): err is E =>
  err instanceof Error && (err as { code?: unknown }).code === code;

/** A thrown SDK error → the service's answer: transient only for what Slack documents as safe to retry. */
export function slackFailure(err: unknown): ProviderError {
  if (isSlack<WebAPIRateLimitedError>(err, 'slack_webapi_rate_limited_error'))
    return {
      code: 'ratelimited',
      message: `Slack asked to wait ${err.retryAfter} s; retried then`,
      transient: true,
      retryAfterMs: err.retryAfter * 1000,
    };
  if (isSlack<WebAPIPlatformError>(err, 'slack_webapi_platform_error')) {
    const code = err.data.error;
    return { code, message: CODE_MESSAGES[code] ?? `Slack refused it (${code})`, transient: TRANSIENT.has(code) };
  }
  if (isSlack<WebAPIHTTPError>(err, 'slack_webapi_http_error')) {
    if (err.statusCode >= 500)
      return { code: 'slackUnavailable', message: `Slack answered ${err.statusCode}; retried later`, transient: true };
    return { code: `http${err.statusCode}`, message: `Slack answered ${err.statusCode}`, transient: false };
  }
  if (isSlack<WebAPIRequestError>(err, 'slack_webapi_request_error')) {
    if (err.original instanceof EgressRefused)
      return { code: 'egressRefused', message: `Slack endpoint refused: ${err.original.message}`, transient: false };
    return { code: 'connection', message: 'Slack could not be reached; retried later', transient: true };
  }
  throw err;
}

/** Who a message goes to: exactly one of a channel, a user id or an email address. */
type Target = { channel: string } | { user: string } | { email: string };

function targetOf(input: Record<string, unknown>): Target {
  const given = (['channel', 'user', 'email'] as const).filter((k) => input[k] !== undefined && input[k] !== null);
  if (given.length !== 1) throw new TypeError('give one of channel (#name or id), user (a user id) or email');
  const key = given[0]!;
  const value = input[key];
  if (typeof value !== 'string' || !value.trim() || value.length > 254) throw new TypeError(`${key} is text`);
  if (key === 'user' && !/^[UW][A-Z0-9]{2,}$/.test(value)) throw new TypeError('user is a Slack user id (U… or W…)');
  if (key === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) throw new TypeError('email is an email address');
  return { [key]: value.trim() } as Target;
}

/** `buttons: ["yes", "no"]` as a section and an actions block: a click comes back as that reply (its `value`). */
export function replyBlocks(text: string, buttons: unknown): Record<string, unknown>[] | undefined {
  if (buttons === undefined || buttons === null) return undefined;
  const ok = (b: unknown) => typeof b === 'string' && b.trim().length > 0 && b.length <= 75;
  if (!Array.isArray(buttons) || buttons.length === 0 || buttons.length > MAX_BUTTONS || !buttons.every(ok))
    throw new TypeError(`buttons is a list of 1 to ${MAX_BUTTONS} labels of at most 75 characters`);
  return [
    { type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 3000) } },
    {
      type: 'actions',
      block_id: 'awp_reply',
      elements: (buttons as string[]).map((label, i) => ({
        type: 'button',
        action_id: `awp_reply_${i}`,
        text: { type: 'plain_text', text: label },
        value: label,
      })),
    },
  ];
}

/** The channel id to post to: the channel as given, or the DM with the person (found by email first). */
async function channelFor(client: WebClient, target: Target): Promise<string> {
  if ('channel' in target) return target.channel;
  let user = 'user' in target ? target.user : '';
  if ('email' in target) {
    const found = await client.users.lookupByEmail({ email: target.email });
    user = found.user?.id ?? '';
  }
  const opened = await client.conversations.open({ users: user });
  const id = opened.channel?.id;
  if (!id) throw new TypeError('Slack opened no conversation with the person');
  return id;
}

async function post(input: Record<string, unknown>, ctx: ProviderCallContext): Promise<ProviderResult> {
  let target: Target;
  let blocks: Record<string, unknown>[] | undefined;
  const text = input.text;
  const threadTs = input.threadTs;
  try {
    target = targetOf(input);
    if (typeof text !== 'string' || !text.trim() || text.length > 40_000)
      throw new TypeError('text is required (at most 40,000 characters)');
    if (threadTs !== undefined && (typeof threadTs !== 'string' || !/^\d+\.\d+$/.test(threadTs)))
      throw new TypeError("threadTs is a message's ts (1700000000.000100)");
    blocks = replyBlocks(text, input.buttons);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    const error = { code: 'invalidInput', message: err.message, transient: false };
    return { status: 'failed', providerRef: null, answer: {}, error };
  }
  if (!ctx.secret) throw new TypeError('slack: the connector has no credential (its bot token)');
  const client = await slackClient(ctx.connector.endpoint, ctx.secret, ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS);
  const channel = await channelFor(client, target);
  const res = await client.chat.postMessage({
    channel,
    text,
    ...(blocks ? { blocks } : {}),
    ...(typeof threadTs === 'string' ? { thread_ts: threadTs } : {}),
    unfurl_links: false,
    unfurl_media: false,
  });
  const ref = `${res.channel}:${res.ts}`;
  return {
    status: 'succeeded',
    providerRef: ref,
    answer: { channel: res.channel, ts: res.ts, ...(threadTs ? { threadTs } : {}) },
  };
}

export const slackAdapter: ProviderAdapter = {
  kind: 'slack',
  capabilities: ['msg.chat'],
  async call(capability, input, ctx) {
    if (capability !== 'msg.chat') throw new TypeError(`slack does not do ${capability}`);
    try {
      return await post(input, ctx);
    } catch (err) {
      return { status: 'failed', providerRef: null, answer: {}, error: slackFailure(err) };
    }
  },
  verifyCallback: verifySlack,
  parseCallback: slackEvents,
  signingSecretProblem: (secret) =>
    SLACK_SIGNING_SECRET.test(secret)
      ? null
      : "a Slack connector's signingSecret is the app's signing secret (32 hex characters, Basic Information → App " +
        'Credentials), the key Slack signs X-Slack-Signature with',
  callbackReply(_events, callback) {
    const { contentType, body } = slackCallbackAnswer(callback);
    return { contentType, body };
  },
};

/** Slack's app signing secret: 32 lower-case hex characters. */
const SLACK_SIGNING_SECRET = /^[0-9a-f]{32}$/;

export type { SlackCallbackAnswer };
