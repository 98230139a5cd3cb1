import { createHmac, randomBytes } from 'node:crypto';

/** Pure rules of webhook delivery: signing, retry timing, what a response means. */

/** Default retry schedule after attempts 1..7: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const RETRY_AFTER_BOUNDS_MS = { min: 5_000, max: 36_000_000 };
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600_000;

/** Delay before the attempt after `attempt` (1-based), ±20 % jitter; null once the schedule is spent. */
export function nextDelayMs(attempt: number, schedule: number[] = DEFAULT_SCHEDULE_MS, random: () => number = Math.random): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Retry-After (seconds or an HTTP date) in ms, kept within bounds; null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(RETRY_AFTER_BOUNDS_MS.max, Math.max(RETRY_AFTER_BOUNDS_MS.min, ms));
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
export function webhookHeaders(secrets: string[], msgId: string, timestampSec: number, body: string): Record<string, string> {
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
export function signingSecrets(sub: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | string | null }, now = Date.now()): string[] {
  const prev = sub.previous_secret && sub.previous_secret_expires_at && new Date(sub.previous_secret_expires_at).getTime() > now ? [sub.previous_secret] : [];
  return [sub.secret, ...prev];
}
