import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';

/**
 * A small stateful Twilio for the flows Prism cannot play: Messages and Calls that keep their state, failures on
 * demand, and the requests Twilio sends back (status callbacks, an inbound SMS, a call's gathered answer), form-encoded
 * and signed with Twilio's real scheme (X-Twilio-Signature: base64 HMAC-SHA1, keyed with the auth token, of the full
 * URL followed by each parameter's name and value in sorted order; made here with the SDK's own function). The
 * requests it takes are the ones the Prism test checks against Twilio's OpenAPI document.
 *
 * Twilio posts to the URL it was given (StatusCallback, the Gather's action), which is the service's public URL
 * (PUBLIC_BASE_URL); the fake signs that URL, as Twilio does, and delivers to `deliverTo`, the address the test
 * service listens on, as a proxy in front of it would.
 */
export interface TwilioFakeRequest {
  method: string;
  path: string;
  body: Record<string, string>;
}

type Failure = 500 | 429 | 'reset' | { status: number; code: number; message: string };

export async function startTwilioFake(opts: { accountSid: string; authToken: string; deliverTo: string }) {
  const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
  const messages = new Map<string, Record<string, string>>();
  const calls = new Map<string, Record<string, string>>();
  const requests: TwilioFakeRequest[] = [];
  const failures: Failure[] = [];

  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const body = Object.fromEntries(new URLSearchParams(text));
      requests.push({ method: req.method!, path, body });
      const send = (status: number, out: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(out));
      const failure = failures.shift();
      if (failure === 'reset') return req.socket.destroy();
      if (failure === 429)
        return send(429, { code: 20429, message: 'Too Many Requests', status: 429 }, { 'retry-after': '0' });
      if (failure === 500) return send(500, { code: 20500, message: 'Internal Server Error', status: 500 });
      if (failure) return send(failure.status, { ...failure });
      const auth = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString('base64')}`;
      if (req.headers.authorization !== auth) return send(401, { code: 20003, message: 'Authenticate', status: 401 });
      const base = `/2010-04-01/Accounts/${opts.accountSid}`;
      if (req.method === 'POST' && path === `${base}/Messages.json`) {
        if (!body.To || !body.Body) return send(400, { code: 21602, message: 'Message body is required', status: 400 });
        const m = { sid: sid('SM'), status: 'queued', to: body.To, from: body.From ?? '', body: body.Body };
        messages.set(m.sid, { ...m, statusCallback: body.StatusCallback ?? '' });
        return send(201, { ...m, account_sid: opts.accountSid, num_segments: '1', error_code: null });
      }
      if (req.method === 'POST' && path === `${base}/Calls.json`) {
        if (!body.To || !body.From) return send(400, { code: 21201, message: 'To and From are required', status: 400 });
        const c = { sid: sid('CA'), status: 'queued', to: body.To, from: body.From };
        calls.set(c.sid, { ...c, twiml: body.Twiml ?? '', statusCallback: body.StatusCallback ?? '' });
        return send(201, { ...c, account_sid: opts.accountSid });
      }
      send(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** A signed POST as Twilio makes it, to `publicUrl` (delivered to the service), with `params` form-encoded. */
  async function post(publicUrl: string, params: Record<string, string>, signature?: string) {
    const target = new URL(publicUrl);
    const res = await fetch(`${opts.deliverTo}${target.pathname}${target.search}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(opts.authToken, publicUrl, params),
      },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') ?? '' };
  }

  /** The URL a call's TwiML gathers its answer to (the Gather's action). */
  const gatherUrl = (twiml: string) => /<Gather[^>]* action="([^"]+)"/.exec(twiml)?.[1]?.replace(/&amp;/g, '&') ?? '';

  return {
    url,
    requests,
    messages,
    calls,
    /** The next requests fail so (500, 429, a dropped connection, or a Twilio error), in order. */
    failNext: (...f: Failure[]) => failures.push(...f),
    post,
    /** A Message's status callback (`delivered`, `undelivered`…), as Twilio sends it to its StatusCallback. */
    messageStatus(messageSid: string, status: string) {
      const m = messages.get(messageSid)!;
      m.status = status;
      const params: Record<string, string> = {
        AccountSid: opts.accountSid,
        MessageSid: messageSid,
        SmsSid: messageSid,
        MessageStatus: status,
        SmsStatus: status,
        To: m.to!,
        From: m.from!,
        ApiVersion: '2010-04-01',
        ...(status === 'undelivered' ? { ErrorCode: '30003' } : {}),
      };
      return post(m.statusCallback!, params);
    },
    /** An inbound SMS from `from` to `to` (the account's Twilio number), as Twilio posts it to the number's webhook. */
    inboundSms(
      webhookUrl: string,
      from: string,
      to: string,
      text: string,
      given: { signature?: string; messageSid?: string } = {},
    ) {
      const messageSid = given.messageSid ?? sid('SM');
      const params = {
        AccountSid: opts.accountSid,
        MessageSid: messageSid,
        SmsMessageSid: messageSid,
        SmsSid: messageSid,
        From: from,
        To: to,
        Body: text,
        NumMedia: '0',
        SmsStatus: 'received',
        ApiVersion: '2010-04-01',
      };
      return post(webhookUrl, params, given.signature).then((r) => ({ ...r, messageSid }));
    },
    /** The person on a call answered: the speech (or keypad digits) gathered, posted to the Gather's action. */
    gathered(callSid: string, answer: { speech?: string; digits?: string }) {
      const c = calls.get(callSid)!;
      c.status = 'in-progress';
      const params: Record<string, string> = {
        AccountSid: opts.accountSid,
        CallSid: callSid,
        CallStatus: 'in-progress',
        Direction: 'outbound-api',
        From: c.from!,
        To: c.to!,
        ApiVersion: '2010-04-01',
        ...(answer.speech !== undefined ? { SpeechResult: answer.speech, Confidence: '0.92' } : {}),
        ...(answer.digits !== undefined ? { Digits: answer.digits } : {}),
      };
      return post(gatherUrl(c.twiml!), params);
    },
    /** The call's end, as Twilio sends it to its StatusCallback. */
    callStatus(callSid: string, status: string) {
      const c = calls.get(callSid)!;
      c.status = status;
      const params = {
        AccountSid: opts.accountSid,
        CallSid: callSid,
        CallStatus: status,
        Direction: 'outbound-api',
        From: c.from!,
        To: c.to!,
        ApiVersion: '2010-04-01',
      };
      return post(c.statusCallback!, params);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type TwilioFake = Awaited<ReturnType<typeof startTwilioFake>>;
