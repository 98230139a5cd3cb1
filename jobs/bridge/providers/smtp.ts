/**
 * Email (issue 31): `msg.email` over SMTP through nodemailer. The connector's `endpoint` is `smtp://host[:port]`
 * (STARTTLS, port 587 by default; required outside local work, so a password never crosses in clear) or
 * `smtps://host[:port]` (TLS from the first byte, port 465); its credential is a `basic` one (`user:password`, as the
 * vault presents it) or none for a relay that takes mail from this host. The host is resolved through the egress
 * checks and the socket goes to the checked address (TLS still names the host), as every other call does.
 *
 * SMTP has no idempotency key: the Message-ID is made of the action's key (`<key@sender-domain>`), so a retry is the
 * same message to the receiving side and to a reader, and it is the provider reference a reply's In-Reply-To names.
 * Replies come back through the provider's inbound webhook (Mailgun's format, smtp-inbound.ts).
 */
import addressparser from 'nodemailer/lib/addressparser';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { EgressRefused } from '../../../shared/http/egress.js';
import { refusedHost } from '../../../shared/http/address-ranges.js';
import { resolveChecked } from '../../../shared/http/pinned-dns.js';
import type { ProviderAdapter, ProviderCallContext, ProviderResult } from './adapter.js';
import { mailgunEvents, verifyMailgun } from './smtp-inbound.js';

const TIMEOUT_MS = 20_000;
const MAX_RECIPIENTS = 50;

type ProviderError = NonNullable<ProviderResult['error']>;

/** SMTP reply codes (RFC 5321 §4.2.3, RFC 4954 for authentication) in words a client can act on. */
const REPLY_MESSAGES: Record<number, string> = {
  421: 'the mail server is not available now',
  450: 'the mailbox is busy or temporarily unavailable',
  451: 'the mail server had a local error',
  452: 'the mail server is out of storage',
  454: 'the mail server could not start TLS or authenticate now',
  500: 'the mail server did not understand a command',
  501: 'the mail server refused an argument (an address, most likely)',
  502: 'the mail server does not implement a command it needs',
  503: 'the mail server refused the order of commands',
  504: 'the mail server does not implement a parameter',
  521: 'the mail server does not accept mail',
  523: 'the message is larger than the mail server accepts',
  530: 'the mail server requires authentication (give the connector a basic credential)',
  534: 'the mail server requires a stronger authentication mechanism',
  535: "the mail server refused the connector's credential",
  538: 'the mail server requires encryption for this authentication',
  550: "the recipient's mailbox is unavailable (it does not exist, or the server refused it)",
  551: 'the recipient is not local to the mail server',
  552: 'the message exceeds the storage allowed',
  553: 'the mailbox name is not allowed',
  554: 'the mail server refused the message',
  555: 'the mail server did not recognise a MAIL FROM or RCPT TO parameter',
  556: "the recipient's domain does not accept mail",
};

/** Errors nodemailer raises when no server answered: the connection refused, reset, timed out, not resolved. */
const CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET']);

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

/** A failed send → the service's answer: 4xx replies and connection trouble retried, 5xx replies final. */
export function smtpFailure(err: unknown): ProviderError {
  if (err instanceof EgressRefused)
    return { code: 'egressRefused', message: `SMTP endpoint refused: ${err.message}`, transient: false };
  const e = err as SmtpError;
  const reply = typeof e.responseCode === 'number' ? e.responseCode : null;
  if (reply !== null && reply >= 400 && reply < 600) {
    const said = REPLY_MESSAGES[reply] ?? (reply < 500 ? 'the mail server deferred it' : 'the mail server refused it');
    // The server's own words (with its enhanced status code, e.g. 5.1.1) follow ours: they name what it refused.
    const server = (e.response ?? '').replace(/\s+/g, ' ').slice(0, 200);
    const message = `${said}${e.command ? ` (at ${e.command})` : ''}: ${server || reply}`;
    return { code: String(reply), message, transient: reply < 500 };
  }
  if (CONNECTION_CODES.has(e.code ?? ''))
    return { code: 'connection', message: 'the mail server could not be reached; retried later', transient: true };
  if (e.code === 'EAUTH')
    return { code: 'authentication', message: "the mail server refused the connector's credential", transient: false };
  if (e.code === 'ETLS') return { code: 'tls', message: 'the mail server could not agree on TLS', transient: false };
  if (e.code === 'EENVELOPE' || e.code === 'EMESSAGE')
    return { code: 'invalidMessage', message: `the message could not be sent: ${e.message}`, transient: false };
  throw err;
}

/** An email connector's endpoint as it is stored: smtp(s)://host[:port], no credentials, no literal private host. */
export function checkSmtpEndpoint(endpoint: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new EgressRefused('endpoint is not a valid URL');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new EgressRefused('an email connector endpoint is smtp://host[:port] or smtps://host[:port]');
  if (url.username || url.password)
    throw new EgressRefused('endpoint must not carry credentials: give the connector a basic credential');
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash)
    throw new EgressRefused('an SMTP endpoint is a host and a port, nothing more');
  if (!url.hostname) throw new EgressRefused('endpoint names no host');
  if (!allowPrivate && refusedHost(url.hostname.replace(/^\[|\]$/g, '')))
    throw new EgressRefused('endpoint points at a private, loopback, local or special-purpose address');
  return `${url.protocol}//${url.host}`;
}

/** The connector's endpoint, credential and the checked address as nodemailer's transport options. */
export async function smtpTransportOptions(
  endpoint: string,
  secret: string | null,
  allowPrivate: boolean,
): Promise<SMTPTransport.Options> {
  const url = new URL(endpoint);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new EgressRefused('an email connector endpoint is smtp://host[:port] or smtps://host[:port]');
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const [address] = await resolveChecked(host, allowPrivate);
  const colon = secret?.indexOf(':') ?? -1;
  return {
    host: address!.address,
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    // Credentials never go over a plain connection, except to a local server in development and tests.
    requireTLS: !secure && !allowPrivate,
    tls: { servername: host },
    ...(secret
      ? {
          auth:
            colon > 0 ? { user: secret.slice(0, colon), pass: secret.slice(colon + 1) } : { user: '', pass: secret },
        }
      : {}),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

interface Mailbox {
  name: string;
  address: string;
}

/** Addresses as given (a string with commas, or a list): each parsed with its name, at most MAX_RECIPIENTS. */
function addresses(value: unknown, name: string, required: boolean): Mailbox[] {
  const given = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  if (given.some((v) => typeof v !== 'string')) throw new TypeError(`${name} is an address or a list of addresses`);
  const found = given.flatMap((v) =>
    addressparser(v as string, { flatten: true }).map((a) => ({ name: a.name ?? '', address: a.address ?? '' })),
  );
  if (found.some((a) => !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(a.address)))
    throw new TypeError(`${name} holds something that is not an email address`);
  if (required && found.length === 0) throw new TypeError(`${name} is required (an email address)`);
  if (found.length > MAX_RECIPIENTS) throw new TypeError(`at most ${MAX_RECIPIENTS} addresses in ${name}`);
  return found;
}

const text = (value: unknown, name: string, max: number): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max) throw new TypeError(`${name} is text of at most ${max}`);
  return value;
};

/** The Message-ID for an action: its idempotency key at the sender's domain, so every retry is the same message. */
export function messageIdFor(idempotencyKey: string, from: string): string {
  const domain = from.split('@').pop()?.replace(/[>\s]/g, '') || 'awp.invalid';
  return `<${idempotencyKey.replace(/[^A-Za-z0-9._-]/g, '_')}@${domain}>`;
}

/** The message nodemailer sends for `input`: `to`, `cc`, `bcc`, `subject`, `text`, `html`, `from`, `replyTo`. */
export function smtpMessage(input: Record<string, unknown>, opts: { idempotencyKey: string; defaultFrom: string }) {
  const from = addresses(input.from ?? opts.defaultFrom, 'from', true)[0]!;
  const body = text(input.text, 'text', 1_000_000);
  const html = text(input.html, 'html', 1_000_000);
  if (!body && !html) throw new TypeError('text (or html) is required');
  const inReplyTo = text(input.inReplyTo, 'inReplyTo', 1000);
  return {
    from,
    to: addresses(input.to, 'to', true),
    cc: addresses(input.cc, 'cc', false),
    bcc: addresses(input.bcc, 'bcc', false),
    replyTo: addresses(input.replyTo, 'replyTo', false)[0],
    subject: text(input.subject, 'subject', 998) ?? '',
    text: body,
    html,
    messageId: messageIdFor(opts.idempotencyKey, from.address),
    ...(inReplyTo ? { inReplyTo, references: [inReplyTo] } : {}),
  };
}

/** The sender when the input names none: the credential's user when it is an address, else MAIL_FROM. */
function defaultFrom(ctx: ProviderCallContext): string {
  const user = ctx.secret && ctx.secret.indexOf(':') > 0 ? ctx.secret.slice(0, ctx.secret.indexOf(':')) : '';
  return user.includes('@') ? user : ctx.deps.config.MAIL_FROM;
}

async function send(input: Record<string, unknown>, ctx: ProviderCallContext): Promise<ProviderResult> {
  let message: ReturnType<typeof smtpMessage>;
  try {
    message = smtpMessage(input, { idempotencyKey: ctx.idempotencyKey, defaultFrom: defaultFrom(ctx) });
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    const error = { code: 'invalidInput', message: err.message, transient: false };
    return { status: 'failed', providerRef: null, answer: {}, error };
  }
  // Loaded on the first send (about 15 MB): a process that sends no mail never holds it.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport(
    await smtpTransportOptions(ctx.connector.endpoint, ctx.secret, ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS),
  );
  const abort = () => transport.close();
  ctx.signal?.addEventListener('abort', abort);
  try {
    const info = await transport.sendMail(message);
    return {
      status: 'succeeded',
      providerRef: info.messageId,
      answer: {
        messageId: info.messageId,
        accepted: info.accepted.map(String),
        rejected: info.rejected.map(String),
        response: info.response,
      },
    };
  } finally {
    ctx.signal?.removeEventListener('abort', abort);
    transport.close();
  }
}

export const smtpAdapter: ProviderAdapter = {
  kind: 'smtp',
  capabilities: ['msg.email'],
  async call(capability, input, ctx) {
    if (capability !== 'msg.email') throw new TypeError(`smtp does not do ${capability}`);
    try {
      return await send(input, ctx);
    } catch (err) {
      return { status: 'failed', providerRef: null, answer: {}, error: smtpFailure(err) };
    }
  },
  verifyCallback: verifyMailgun,
  parseCallback: mailgunEvents,
  signingSecretProblem: (secret) =>
    MAILGUN_SIGNING_KEY.test(secret)
      ? null
      : "an smtp connector's signingSecret is the inbound provider's webhook signing key (Mailgun: Sending → " +
        'Webhooks → HTTP webhook signing key, 16 or more letters, digits and dashes)',
};

/** Mailgun's HTTP webhook signing key (`key-…` in older accounts, hex in newer ones). */
const MAILGUN_SIGNING_KEY = /^[A-Za-z0-9-]{16,200}$/;
