import type { Deps } from '../../../shared/deps.js';
import { insertEntry, type NewEntry } from './timeline-repository.js';
import { getCase, recordExists, type CaseRow } from './repository.js';
import type { Db } from '../../../shared/db/knex.js';
import { notFound } from '../../../shared/errors.js';
import { newId } from '../../../shared/ids.js';
import type { Principal } from '../../../shared/schemas/auth.js';
import type { CaseRef } from './schemas.js';
import { wakeDispatcher } from '../../events/index.js';

/** What every case use case shares: the caller's name on the timeline, the locked case, refs, entries, wake-ups. */

export const actorOf = (principal: Principal) => `token:${principal.tokenId}`;

/**
 * The account's case, locked for the rest of the transaction (changes to one case and its parts queue behind each
 * other); 404 otherwise.
 */
export async function lockCase(trx: Db, accountId: string, caseId: string): Promise<CaseRow> {
  const row = await getCase(trx, accountId, caseId, true);
  if (!row) throw notFound(`Case ${caseId}`);
  return row;
}

/** The account's case (no lock); 404 otherwise. */
export async function ownCase(db: Db, accountId: string, caseId: string): Promise<CaseRow> {
  const row = await getCase(db, accountId, caseId);
  if (!row) throw notFound(`Case ${caseId}`);
  return row;
}

const REF_TABLES = { run: 'runs', task: 'tasks', mission: 'proxy_missions', proofCard: 'proof_cards' } as const;

/**
 * Every run, task, mission and proof card a change points at must be the account's (404 naming it otherwise); receipts
 * are taken as given.
 */
export async function checkRefs(db: Db, accountId: string, refs: readonly CaseRef[] | undefined): Promise<void> {
  for (const ref of refs ?? []) {
    if (ref.kind === 'receipt') continue;
    if (!(await recordExists(db, REF_TABLES[ref.kind], accountId, ref.id)))
      throw notFound(`The ${ref.kind} ${ref.id} of refs`);
  }
}

/** Appends a timeline entry in the caller's transaction. */
export async function writeEntry(
  trx: Db,
  caseRow: Pick<CaseRow, 'id' | 'account_id'>,
  entry: Omit<NewEntry, 'caseId' | 'accountId'>,
): Promise<string> {
  const id = newId('tle');
  await insertEntry(trx, id, { ...entry, caseId: caseRow.id, accountId: caseRow.account_id });
  return id;
}

/** After the commit: wake the dispatcher when the change queued webhook deliveries. */
export async function afterCommit<T>(deps: Deps, result: { value: T; deliveries: number }): Promise<T> {
  if (result.deliveries > 0) await wakeDispatcher(deps);
  return result.value;
}
