import type { Knex } from 'knex';
import { PLATFORM, seal, type VaultDeps } from './index.js';
import { SEALED_PREFIX } from './envelope.js';

/**
 * Seals secrets stored in plain text before envelope encryption existed
 * (issue 26): webhook secrets (current and previous), connector signing
 * secrets and the signing key's private half. A migration cannot do this
 * (SQL does not know the master key), so it runs right after the knex
 * migrations, wherever they run: `npm run migrate`, `npm start`, the test
 * harness. Each row is rewritten only if it still holds the plaintext it was
 * read with, so processes running it together cannot seal a value twice.
 * Readers accept plaintext meanwhile (openStored), so order does not matter.
 */

interface Column {
  table: string;
  key: string;
  column: string;
  owner: (row: Record<string, string>) => string;
}

const COLUMNS: Column[] = [
  { table: 'subscriptions', key: 'id', column: 'secret', owner: (r) => r.account_id! },
  { table: 'subscriptions', key: 'id', column: 'previous_secret', owner: (r) => r.account_id! },
  { table: 'connectors', key: 'id', column: 'signing_secret', owner: (r) => r.account_id! },
  { table: 'signing_keys', key: 'kid', column: 'private_key', owner: () => PLATFORM },
];

export async function sealPlaintextSecrets(deps: VaultDeps): Promise<Record<string, number>> {
  const sealed: Record<string, number> = {};
  for (const c of COLUMNS) {
    const rows: Array<Record<string, string>> = await (deps.db as Knex)(c.table)
      .whereNotNull(c.column)
      .andWhereNot(c.column, 'like', `${SEALED_PREFIX}%`)
      .select('*');
    let n = 0;
    for (const row of rows) {
      const value = await seal(deps, c.owner(row), row[c.column]!);
      n += await deps
        .db(c.table)
        .where({ [c.key]: row[c.key], [c.column]: row[c.column] })
        .update({ [c.column]: value });
    }
    if (n > 0) sealed[`${c.table}.${c.column}`] = n;
  }
  return sealed;
}
