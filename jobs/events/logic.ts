import { createHmac, randomBytes } from 'node:crypto';

/** Pure rules of webhook delivery: signing, retry timing, what a response means. */

/** Default retry schedule after attempts 1..7: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** The longest wait a Retry-After header can ask for (10 h, the schedule's longest step). */
export const RETRY_AFTER_MAX_MS = 36_000_000;
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600_000;
/**
 * How old an event may be when its paused subscription is resumed and still
 * be delivered. A week covers a paused weekend, a holiday or a maintenance
 * window; an event older than that is more likely to mislead a receiver
 * acting on it now than to help, and a months-long pause would otherwise end
 * in a flood. Skipped attempts are canceled with a reason and stay
 * retryable by hand.
 */
export const HELD_MAX_AGE_MS = 7 * 24 * 3600_000;
export const HELD_TOO_LONG =
  'not delivered: held for more than 7 days while the subscription was paused (retry this attempt to deliver ' +
  'it anyway)';

/** Delay before the attempt after `attempt` (1-based), ±20 % jitter; null once the schedule is spent. */
export function nextDelayMs(
  attempt: number,
  schedule: number[] = DEFAULT_SCHEDULE_MS,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Retry-After (seconds or an HTTP date) in ms, within [0, 10 h]; null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(0, ms));
}

/**
 * Delay before the attempt after `attempt`, or null when there is none. The
 * schedule decides whether there is one: its length caps the attempts, so a
 * receiver's Retry-After (or a pull worker's retryAfterSeconds) can never add
 * any. It can only lengthen the wait: the later of the schedule's delay and
 * the one asked for, so `Retry-After: 0` cannot turn the schedule into a
 * hammering loop either.
 */
export function retryDelayMs(
  attempt: number,
  schedule: number[],
  askedMs: number | null,
  random: () => number = Math.random,
): number | null {
  const scheduled = nextDelayMs(attempt, schedule, random);
  if (scheduled === null) return null;
  return askedMs === null ? scheduled : Math.max(scheduled, askedMs);
}

export type Verdict = 'completed' | 'retry' | 'disable';

/** 2xx completes; 410 Gone disables the subscription; anything else is retried. */
export function verdictFor(status: number | null): Verdict {
  if (status !== null && status >= 200 && status < 300) return 'completed';
  if (status === 410) return 'disable';
  return 'retry';
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function isWebhookSecret(secret: string): boolean {
  return /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/.test(secret);
}

/** Standard Webhooks signature: base64 HMAC-SHA256 over `id.timestamp.body` with the secret's decoded key. */
export function sign(secret: string, msgId: string, timestampSec: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${msgId}.${timestampSec}.${body}`).digest('base64')}`;
}

/** Headers for one delivery; during a rotation overlap both secrets sign (space-separated). */
export function webhookHeaders(
  secrets: string[],
  msgId: string,
  timestampSec: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'awp-webhooks/0.1',
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': secrets.map((s) => sign(s, msgId, timestampSec, body)).join(' '),
  };
}

/** A subscription's `events` entry matches a type exactly, by prefix wildcard (`task.*`), or all (`*`). */
export function matchesType(patterns: string[], type: string): boolean {
  return patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}

/** Secrets that sign a delivery now: the current one, plus the previous one during its rotation overlap. */
export function signingSecrets(
  sub: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | string | null },
  now = Date.now(),
): string[] {
  const prev =
    sub.previous_secret && sub.previous_secret_expires_at && new Date(sub.previous_secret_expires_at).getTime() > now
      ? [sub.previous_secret]
      : [];
  return [sub.secret, ...prev];
}
