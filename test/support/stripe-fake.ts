import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small stateful Stripe for the flows Prism cannot play (it answers each request alone): PaymentIntents that keep
 * their state, Idempotency-Key replays, declines, transient failures on demand, refunds, and webhook events signed
 * with Stripe's real scheme (`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<payload>">`, the whsec_ string
 * itself as the key). The requests it takes are the ones the Prism test checks against Stripe's OpenAPI document.
 *
 * Payment methods: `pm_card_visa` pays, `pm_card_chargeDeclined` is declined (card_declined), `pm_card_processing`
 * leaves the PaymentIntent `processing` (its outcome then comes by webhook).
 */
export interface FakeRequest {
  method: string;
  path: string;
  body: Record<string, any>;
  idempotencyKey: string | null;
}

type Failure = 500 | 429 | 'reset';

/** `a[b][c]=v` form fields (what the SDK sends) → nested objects. */
function parseForm(text: string): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/[[\]]+/).filter(Boolean);
    let node = out;
    parts.slice(0, -1).forEach((p) => (node = node[p] ??= {}));
    node[parts[parts.length - 1]!] = value;
  }
  return out;
}

export function stripeSignature(secret: string, payload: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

export async function startStripeFake(opts: { secretKey: string; paymentMethods?: Record<string, string> }) {
  let n = 0;
  const id = (prefix: string) => `${prefix}_${(++n).toString().padStart(6, '0')}${randomBytes(4).toString('hex')}`;
  const intents = new Map<string, Record<string, any>>();
  const refunds = new Map<string, Record<string, any>>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const requests: FakeRequest[] = [];
  const failures: Failure[] = [];
  const paymentMethods: Record<string, string> = opts.paymentMethods ?? {};
  const state = { refundStatus: 'pending' as string };

  const error = (status: number, e: Record<string, unknown>) => ({ status, body: { error: e } });
  const missing = (what: string) =>
    error(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}` });

  function createIntent(b: Record<string, any>) {
    if (!/^\d+$/.test(b.amount ?? '') || !b.currency || !b.customer || !b.payment_method)
      return error(400, { type: 'invalid_request_error', code: 'parameter_missing', message: 'missing parameter' });
    const pi: Record<string, any> = {
      id: id('pi'),
      object: 'payment_intent',
      amount: Number(b.amount),
      currency: b.currency,
      customer: b.customer,
      payment_method: b.payment_method,
      metadata: b.metadata ?? {},
      status: 'succeeded',
      latest_charge: id('ch'),
      last_payment_error: null,
      amount_refunded: 0,
    };
    intents.set(pi.id, pi);
    if (b.payment_method === 'pm_card_processing') pi.status = 'processing';
    if (b.payment_method === 'pm_card_chargeDeclined') {
      const e = { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'declined' };
      Object.assign(pi, { status: 'requires_payment_method', last_payment_error: e, latest_charge: null });
      return error(402, { ...e, payment_intent: pi });
    }
    return { status: 200, body: pi };
  }

  function createRefund(b: Record<string, any>) {
    const pi = intents.get(b.payment_intent);
    if (!pi) return missing(`payment_intent: '${b.payment_intent}'`);
    const amount = Number(b.amount ?? pi.amount - pi.amount_refunded);
    if (amount > pi.amount - pi.amount_refunded)
      return error(400, { type: 'invalid_request_error', code: 'amount_too_large', message: 'amount too large' });
    pi.amount_refunded += amount;
    const re = {
      id: id('re'),
      object: 'refund',
      amount,
      currency: pi.currency,
      payment_intent: pi.id,
      status: state.refundStatus,
      metadata: b.metadata ?? {},
      failure_reason: null,
    };
    refunds.set(re.id, re);
    return { status: 200, body: re };
  }

  function route(method: string, path: string, body: Record<string, any>) {
    const [, , kind, key] = path.split('/');
    if (method === 'POST' && path === '/v1/payment_intents') return createIntent(body);
    if (method === 'POST' && path === '/v1/refunds') return createRefund(body);
    if (method === 'GET' && kind === 'payment_intents')
      return intents.has(key!) ? { status: 200, body: intents.get(key!) } : missing(`payment_intent: '${key}'`);
    if (method === 'GET' && kind === 'payment_methods')
      return key! in paymentMethods
        ? { status: 200, body: { id: key, object: 'payment_method', type: 'card', customer: paymentMethods[key!] } }
        : missing(`PaymentMethod: '${key}'`);
    return missing(`route ${method} ${path}`);
  }

  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const body = parseForm(text);
      const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
      requests.push({ method: req.method!, path, body, idempotencyKey: key });
      const failure = failures.shift();
      if (failure === 'reset') return req.socket.destroy();
      const send = (status: number, out: unknown, replayed = false) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': id('req') };
        if (replayed) headers['idempotent-replayed'] = 'true';
        res.writeHead(status, headers).end(JSON.stringify(out));
      };
      if (failure === 429)
        return send(429, { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many' } });
      if (failure === 500) return send(500, { error: { type: 'api_error', message: 'Something went wrong' } });
      if (req.headers.authorization !== `Bearer ${opts.secretKey}`)
        return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      const replay = key && req.method === 'POST' ? replays.get(`${path} ${key}`) : undefined;
      if (replay) return send(replay.status, replay.body, true);
      const out = route(req.method!, path, body);
      if (key && req.method === 'POST') replays.set(`${path} ${key}`, out);
      send(out.status, out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    intents,
    refunds,
    paymentMethods,
    state,
    /** The next requests fail so (500, 429 or a dropped connection), in order. */
    failNext: (...f: Failure[]) => failures.push(...f),
    /** A signed event as Stripe would POST it: its raw body and its Stripe-Signature header. */
    event(type: string, object: Record<string, any>, secret: string, at?: number) {
      const body = JSON.stringify({
        id: id('evt'),
        object: 'event',
        type,
        api_version: '2023-08-16',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: { object },
      });
      return { body, signature: stripeSignature(secret, body, at) };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type StripeFake = Awaited<ReturnType<typeof startStripeFake>>;
