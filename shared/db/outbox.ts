import type { Db } from './knex.js';
import { newId } from '../ids.js';

export interface OutboxEvent {
  accountId: string;
  type: string;
  payload: Record<string, unknown>;
  /** The record the event is about (`task_...`, `run_...`). */
  subject?: string;
  source?: string;
}

/**
 * The one way domain code records an integration event. Pass the transaction
 * that makes the state change, so the event commits (or not) with it.
 * Fan-out to subscriptions happens after commit (jobs/events).
 */
export async function recordEvent(trx: Db, event: OutboxEvent): Promise<string> {
  const id = newId('evt');
  await trx('events').insert({
    id,
    account_id: event.accountId,
    type: event.type,
    source: event.source ?? 'service',
    subject: event.subject ?? null,
    payload: JSON.stringify(event.payload),
  });
  return id;
}
