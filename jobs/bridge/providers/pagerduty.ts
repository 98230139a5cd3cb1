/**
 * PagerDuty Events API v2 (issue 33): `incident.page` sends a `trigger`, `acknowledge` or `resolve` event for a dedup
 * key to `POST {endpoint}/v2/enqueue` (https://events.pagerduty.com; a fake in tests). The connector's credential is
 * the service integration's routing key, sent in the body as the API asks. PagerDuty publishes no SDK of its own for
 * Events v2 and no OpenAPI document for it in the directory, so this is a small client over the egress client.
 *
 * PagerDuty deduplicates by `dedup_key`: a trigger repeated for an open alert adds nothing, which is what makes a
 * retried page (the action's queue retries after a lost answer) page once. 202 is taken; 400 is a refusal
 * (`invalid event`, with PagerDuty's errors); 429 and 5xx are retried later, as its documentation asks.
 */
import { egressFetch, EgressRefused } from '../../../shared/http/egress.js';
import {
  failed,
  invalidInput,
  type ProviderAdapter,
  type ProviderCallContext,
  type ProviderResult,
} from './adapter.js';

const TIMEOUT_MS = 15_000;
const ACTIONS = ['trigger', 'acknowledge', 'resolve'] as const;
const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
/** What PagerDuty takes: a summary of at most 1024 characters, a dedup key of at most 255. */
const MAX_SUMMARY = 1024;
const MAX_KEY = 255;

type Obj = Record<string, unknown>;

/** The Events v2 body for an `incident.page` input; a TypeError says what is wrong with the input. */
export function pagerDutyEvent(input: Obj, routingKey: string): Obj {
  const action = input.action ?? 'trigger';
  if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
    throw new TypeError('action is trigger, acknowledge or resolve');
  const dedupKey = input.dedupKey;
  if (typeof dedupKey !== 'string' || !dedupKey || dedupKey.length > MAX_KEY)
    throw new TypeError(`dedupKey is required (at most ${MAX_KEY} characters)`);
  if (action !== 'trigger') return { routing_key: routingKey, event_action: action, dedup_key: dedupKey };
  const summary = input.summary;
  if (typeof summary !== 'string' || !summary.trim()) throw new TypeError('summary is required for a trigger');
  const severity = SEVERITIES.includes(input.severity as (typeof SEVERITIES)[number]) ? input.severity : 'error';
  const text = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 255) : undefined);
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: summary.slice(0, MAX_SUMMARY),
      source: text(input.source) ?? 'awp',
      severity,
      component: text(input.component),
      group: text(input.group),
      class: text(input.class),
      custom_details: input.details && typeof input.details === 'object' ? input.details : undefined,
    },
    client: 'awp',
    client_url: text(input.link),
  };
}

async function page(input: Obj, ctx: ProviderCallContext): Promise<ProviderResult> {
  if (!ctx.secret) throw new TypeError('pagerduty: the connector has no credential (the routing key)');
  let body: Obj;
  try {
    body = pagerDutyEvent(input, ctx.secret);
  } catch (err) {
    return invalidInput(err);
  }
  let res;
  try {
    res = await egressFetch(
      ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS,
      `${ctx.connector.endpoint.replace(/\/+$/, '')}/v2/enqueue`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: ctx.signal,
        timeoutMs: TIMEOUT_MS,
        maxBytes: 64 * 1024,
      },
    );
  } catch (err) {
    if (err instanceof EgressRefused)
      return failed('egressRefused', `PagerDuty endpoint refused: ${err.message}`, false);
    return failed('connection', 'PagerDuty could not be reached; retried later', true);
  }
  let answer: Obj = {};
  try {
    answer = JSON.parse(res.text) as Obj;
  } catch {
    // A proxy's HTML page or an empty body: the status decides.
  }
  if (res.status === 202 || res.status === 200)
    return {
      status: 'succeeded',
      providerRef: typeof answer.dedup_key === 'string' ? answer.dedup_key : String(body.dedup_key),
      answer: { status: answer.status ?? 'success', message: answer.message ?? null, dedupKey: body.dedup_key },
    };
  if (res.status === 429) {
    const after = Number(res.headers['retry-after']);
    return failed(
      'rateLimited',
      'PagerDuty asked to slow down; retried later',
      true,
      after > 0 ? after * 1000 : 30_000,
    );
  }
  if (res.status >= 500) return failed('pagerDutyUnavailable', `PagerDuty answered ${res.status}; retried later`, true);
  const errors = Array.isArray(answer.errors) ? answer.errors.filter((e) => typeof e === 'string').join('; ') : '';
  const said = typeof answer.message === 'string' ? answer.message : `status ${res.status}`;
  return failed(
    res.status === 400 ? 'invalidEvent' : `http${res.status}`,
    `PagerDuty refused the event (${said}${errors ? `: ${errors}` : ''})`.slice(0, 500),
    false,
  );
}

export const pagerDutyAdapter: ProviderAdapter = {
  kind: 'pagerduty',
  capabilities: ['incident.page'],
  async call(capability, input, ctx) {
    if (capability !== 'incident.page') throw new TypeError(`pagerduty does not do ${capability}`);
    return page(input, ctx);
  },
};
