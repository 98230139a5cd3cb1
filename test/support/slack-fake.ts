import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { slackSignature } from '../../jobs/bridge/providers/slack-callbacks.js';

/**
 * A small stateful Slack Web API for the flows Prism cannot play (it answers each request alone): channels by name
 * and id, the bot's membership, users by email, DMs that stay open, posted messages with their ts, Slack's `ok:false`
 * errors and 429s with Retry-After on demand, and callbacks signed with Slack's real scheme (`X-Slack-Signature:
 * v0=<hex HMAC-SHA256 of "v0:<timestamp>:<body>">`): a button click (`payload=` form), a thread reply and the
 * `url_verification` challenge (Events API JSON). The requests it takes are the ones the Prism test checks.
 */
export interface SlackMessage {
  channel: string;
  ts: string;
  text: string;
  threadTs: string | null;
  blocks: unknown[] | null;
}

type Failure = { status: 429; retryAfterSec: number } | { status: 500 } | { error: string };

export async function startSlackFake(opts: { token: string }) {
  let clock = 1_700_000_000;
  let seq = 0;
  const ts = () => `${++clock}.${String(++seq).padStart(6, '0')}`;
  const channels = new Map<string, { id: string; member: boolean }>([
    ['ops', { id: 'C0OPS', member: true }],
    ['quiet', { id: 'C0QUIET', member: false }],
  ]);
  const users = new Map<string, string>([['olga@example.com', 'U0OLGA']]);
  const dms = new Map<string, string>();
  const messages: SlackMessage[] = [];
  const requests: Array<{ method: string; body: Record<string, string>; authorization: string }> = [];
  const failures: Failure[] = [];

  const channelOf = (given: string) => {
    const name = given.replace(/^#/, '');
    return (
      channels.get(name) ??
      [...channels.values(), ...[...dms.values()].map((id) => ({ id, member: true }))].find((c) => c.id === given)
    );
  };

  function answer(method: string, b: Record<string, string>): Record<string, unknown> {
    if (method === 'users.lookupByEmail') {
      const id = users.get((b.email ?? '').toLowerCase());
      return id ? { ok: true, user: { id, name: id.toLowerCase() } } : { ok: false, error: 'users_not_found' };
    }
    if (method === 'conversations.open') {
      const user = b.users ?? '';
      if (![...users.values()].includes(user)) return { ok: false, error: 'user_not_found' };
      if (!dms.has(user)) dms.set(user, `D${user.slice(1)}`);
      return { ok: true, channel: { id: dms.get(user) } };
    }
    if (method === 'chat.postMessage') {
      const channel = channelOf(b.channel ?? '');
      if (!channel) return { ok: false, error: 'channel_not_found' };
      if (!channel.member) return { ok: false, error: 'not_in_channel' };
      if (!b.text && !b.blocks) return { ok: false, error: 'no_text' };
      const message: SlackMessage = {
        channel: channel.id,
        ts: ts(),
        text: b.text ?? '',
        threadTs: b.thread_ts ?? null,
        blocks: b.blocks ? (JSON.parse(b.blocks) as unknown[]) : null,
      };
      messages.push(message);
      return { ok: true, channel: channel.id, ts: message.ts, message: { text: message.text, ts: message.ts } };
    }
    return { ok: false, error: 'unknown_method' };
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const method = (req.url ?? '/').split('?')[0]!.replace(/^\/api\//, '');
      const json = /json/.test(req.headers['content-type'] ?? '');
      const body = json
        ? (JSON.parse(raw || '{}') as Record<string, string>)
        : Object.fromEntries(new URLSearchParams(raw));
      const authorization = String(req.headers.authorization ?? '');
      requests.push({ method, body, authorization });
      const send = (status: number, out: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(out));
      const failure = failures.shift();
      if (failure && 'status' in failure && failure.status === 429)
        return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfterSec) });
      if (failure && 'status' in failure) return send(500, { ok: false, error: 'internal_error' });
      if (failure && 'error' in failure) return send(200, { ok: false, error: failure.error });
      if (authorization !== `Bearer ${opts.token}`)
        return send(200, { ok: false, error: authorization ? 'invalid_auth' : 'not_authed' });
      send(200, answer(method, body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;

  /** A body as Slack POSTs it, with its signature headers (`at`: the timestamp, for replays). */
  const signed = (secret: string, body: string, contentType: string, at = Math.floor(Date.now() / 1000)) => ({
    body,
    headers: {
      'content-type': contentType,
      'x-slack-request-timestamp': String(at),
      'x-slack-signature': slackSignature(secret, at, body),
    },
  });

  return {
    url,
    channels,
    users,
    messages,
    requests,
    /** The next requests fail so (a 429 with Retry-After, a 500, an `ok:false` error), in order. */
    failNext: (...f: Failure[]) => failures.push(...f),
    /** A button click on `message` (block_actions), as Slack's interactivity POSTs it: `payload=<json>`. */
    click(secret: string, message: SlackMessage, value: string, user = 'U0OLGA', at?: number) {
      const payload = {
        type: 'block_actions',
        trigger_id: `${clock}.${randomBytes(6).toString('hex')}`,
        user: { id: user, username: user.toLowerCase() },
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel },
        channel: { id: message.channel },
        message: { ts: message.ts, text: message.text },
        actions: [{ type: 'button', action_id: 'awp_reply_0', block_id: 'awp_reply', value, action_ts: ts() }],
      };
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      return signed(secret, body, 'application/x-www-form-urlencoded', at);
    },
    /** A person's reply in the thread of `message` (an Events API `message` event). */
    threadReply(secret: string, message: SlackMessage, text: string, user = 'U0OLGA', at?: number) {
      const event = { type: 'message', channel: message.channel, user, text, ts: ts(), thread_ts: message.ts };
      const body = JSON.stringify({
        type: 'event_callback',
        event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
        event_time: clock,
        event,
      });
      return signed(secret, body, 'application/json', at);
    },
    /** The Events API's check of a Request URL: the route answers the challenge. */
    urlVerification(secret: string, at?: number) {
      const challenge = randomBytes(20).toString('base64url');
      const body = JSON.stringify({ token: 'legacy-verification-token', challenge, type: 'url_verification' });
      return { challenge, ...signed(secret, body, 'application/json', at) };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type SlackFake = Awaited<ReturnType<typeof startSlackFake>>;
