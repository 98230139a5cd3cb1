import type { Static } from '@sinclair/typebox';
import { deleteChainLabel, insertChainLabel, listChainLabels, type ChainLabelRow } from './chain-labels-repository.js';
import type { Deps } from '../../shared/deps.js';
import { conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { ChainLabelCreate, ChainLabelView } from './chain-schemas.js';
import { familyOf, normalizeAddress } from './chain-trace.js';

/**
 * The account's address labels (exchange, mixer, known scam, sanctioned, ...) that chain traces are matched against.
 */

export const chainLabelView = (l: ChainLabelRow): Static<typeof ChainLabelView> => ({
  labelId: l.id,
  family: l.family as 'evm' | 'bitcoin',
  address: l.address,
  kind: l.kind as Static<typeof ChainLabelView>['kind'],
  name: l.name,
  note: l.note,
  createdAt: l.created_at.toISOString(),
});

export async function addChainLabel(
  deps: Deps,
  accountId: string,
  body: Static<typeof ChainLabelCreate>,
): Promise<ChainLabelRow> {
  const row = await insertChainLabel(deps.db, {
    id: newId('clb'),
    account_id: accountId,
    family: familyOf(body.chain),
    address: normalizeAddress(body.chain, body.address.trim()),
    kind: body.kind,
    name: body.name,
    note: body.note ?? null,
  });
  if (!row) throw conflict(`${body.address} already has a label on ${familyOf(body.chain)} chains; delete it first`);
  return row;
}

export const chainLabelPage = (deps: Deps, accountId: string, limit: number, cursor?: string) =>
  listChainLabels(deps.db, accountId, limit, cursor);

export async function removeChainLabel(deps: Deps, accountId: string, labelId: string): Promise<void> {
  if ((await deleteChainLabel(deps.db, accountId, labelId)) === 0) throw notFound(`Chain label ${labelId}`);
}
