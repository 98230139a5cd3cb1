import { harness } from './harness.js';

/**
 * `n` queued deliveries of a pull subscription (the dispatcher never claims
 * those), inserted directly, so tests drive the ledger by hand through the API.
 */
export async function seedDeliveries(
  accountId: string,
  n: number,
): Promise<{ subscriptionId: string; eventId: string; ids: string[] }> {
  const db = harness.deps.db;
  const subscriptionId = `sub_seed_${Math.random().toString(36).slice(2)}`;
  await db('subscriptions').insert({
    id: subscriptionId,
    account_id: accountId,
    endpoint: 'https://receiver.invalid/hook',
    events: ['seed.made'],
    mode: 'pull',
    secret: 'whsec_c2VlZHNlZWRzZWVkc2VlZA==',
  });
  const eventId = `evt_seed_${Math.random().toString(36).slice(2)}`;
  await db('events').insert({
    id: eventId,
    account_id: accountId,
    type: 'seed.made',
    payload: '{}',
    fanned_out_at: db.fn.now(),
  });
  const ids: string[] = [];
  const rows = Array.from({ length: n }, (_, i) => {
    const id = `dlv_seed_${eventId.slice(9)}_${String(i).padStart(4, '0')}`;
    ids.push(id);
    // Only the first row is a root (one root per event and subscription); the others hang off it as later attempts.
    return {
      id,
      account_id: accountId,
      event_id: eventId,
      subscription_id: subscriptionId,
      root_id: id,
      mode: 'pull',
      parent_id: i === 0 ? null : ids[0],
      attempt: i === 0 ? 1 : 2,
    };
  });
  for (let i = 0; i < rows.length; i += 250) await db('deliveries').insert(rows.slice(i, i + 250));
  return { subscriptionId, eventId, ids };
}
