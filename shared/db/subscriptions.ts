import type { Db } from './knex.js';
import { iso } from './knex.js';

export interface SubscriptionRow {
  id: string;
  account_id: string;
  endpoint: string;
  events: string[];
  status: 'active' | 'paused' | 'disabled';
  mode: 'push' | 'pull';
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  description: string | null;
  failing_since: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function getSubscription(db: Db, accountId: string, id: string, forUpdate = false): Promise<SubscriptionRow | null> {
  const q = db('subscriptions').where({ id, account_id: accountId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** Secrets that sign a delivery now: the current one, plus the previous one during its 24 h overlap. */
export function signingSecrets(sub: SubscriptionRow, now = Date.now()): string[] {
  const prev = sub.previous_secret && sub.previous_secret_expires_at && new Date(sub.previous_secret_expires_at).getTime() > now ? [sub.previous_secret] : [];
  return [sub.secret, ...prev];
}

/** The subscription as clients see it: never its secrets. */
export function subscriptionView(s: SubscriptionRow) {
  return {
    subscriptionId: s.id,
    endpoint: s.endpoint,
    events: s.events,
    status: s.status,
    mode: s.mode,
    description: s.description,
    secretRotation: s.previous_secret_expires_at && new Date(s.previous_secret_expires_at).getTime() > Date.now() ? { previousSecretValidUntil: iso(s.previous_secret_expires_at) } : null,
    failingSince: iso(s.failing_since),
    disabledReason: s.disabled_reason,
    createdAt: iso(s.created_at),
    updatedAt: iso(s.updated_at),
  };
}
