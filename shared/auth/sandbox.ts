import type { Deps } from '../deps.js';
import { insertListings } from '../db/catalog.js';
import type { Principal } from '../schemas/auth.js';
import { DEFAULT_SCOPES } from '../schemas/auth.js';

export const SANDBOX_ACCOUNT = 'acct_sandbox';
export const SANDBOX_PREFIX = 'sandbox_';

/** Deterministic demo listings every sandbox run searches. */
const SANDBOX_LISTINGS = [
  { title: 'Espresso machine Classic 15 bar', price: 189, fees: 12, vendor: 'Brewhouse', url: 'https://sandbox.awp.local/brewhouse/classic', tags: ['coffee', 'espresso', 'kitchen'] },
  { title: 'Espresso machine Compact', price: 149, fees: 0, vendor: 'CafeCo', url: 'https://sandbox.awp.local/cafeco/compact', tags: ['coffee', 'espresso'] },
  { title: 'Espresso machine Pro dual boiler', price: 899, fees: 40, vendor: 'Brewhouse', url: 'https://sandbox.awp.local/brewhouse/pro', tags: ['coffee', 'espresso'] },
  { title: 'Road bike aluminium 56 cm', price: 380, fees: 25, vendor: 'CycleHub', url: 'https://sandbox.awp.local/cyclehub/road56', tags: ['bike', 'road'] },
  { title: 'Standing desk electric 140x70', price: 279, fees: 30, vendor: 'DeskWorks', tags: ['desk', 'office'] },
  { title: 'Noise cancelling headphones', price: 199, fees: 0, vendor: 'SoundLab', url: 'https://sandbox.awp.local/soundlab/nc', tags: ['audio', 'headphones'] },
];

export function isSandboxBody(body: unknown): boolean {
  const id = (body as { conversationId?: unknown } | undefined)?.conversationId;
  return typeof id === 'string' && id.startsWith(SANDBOX_PREFIX);
}

let seeded: Promise<void> | undefined;

/**
 * The principal of sandbox-mode runs: a built-in team account with a seeded
 * demo catalog, so a sandbox run needs no production key and sees no one's data.
 */
export async function sandboxPrincipal(deps: Pick<Deps, 'db'>): Promise<Principal> {
  seeded ??= deps.db.transaction(async (trx) => {
    const inserted = await trx('accounts')
      .insert({ id: SANDBOX_ACCOUNT, email: 'sandbox@awp.local', name: 'sandbox', password_hash: '!', plan: 'team', status: 'active' })
      .onConflict('id').ignore().returning('id');
    if (inserted.length === 1) await insertListings(trx, SANDBOX_ACCOUNT, SANDBOX_LISTINGS.map((l) => ({ currency: 'USD', ...l })));
  }).catch((err) => {
    seeded = undefined;
    throw err;
  });
  await seeded;
  return { accountId: SANDBOX_ACCOUNT, tokenId: 'sandbox', scopes: DEFAULT_SCOPES, plan: 'team', activated: true };
}
