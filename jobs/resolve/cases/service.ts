import type { Deps } from '../../../shared/deps.js';
import { actionsIn, caseDeadlines, caseStakeholders } from './parts-repository.js';
import {
  getCase,
  getCaseByKey,
  insertCase,
  linkRun,
  listCases,
  updateCase,
  type CaseFilter,
  type CasePatch,
  type CaseRow,
} from './repository.js';
import type { Db } from '../../../shared/db/knex.js';
import { recordEvent } from '../../../shared/db/outbox.js';
import { invalidPayload } from '../../../shared/errors.js';
import { newId } from '../../../shared/ids.js';
import type { Principal } from '../../../shared/schemas/auth.js';
import type { CaseUpdate, CaseUpsert } from './schemas.js';
import { changedFields } from './logic.js';
import { CASES, OPEN_ACTION_STATUSES } from './machines.js';
import type { CaseRecord } from './view.js';
import { actorOf, afterCommit, checkRefs, lockCase, ownCase, writeEntry } from './workspace.js';

/** A case with its stakeholders, deadlines and open action items. */
export async function caseRecord(db: Db, row: CaseRow): Promise<CaseRecord> {
  const [stakeholders, deadlines, actions] = await Promise.all([
    caseStakeholders(db, row.id),
    caseDeadlines(db, row.id),
    actionsIn(db, row.id, OPEN_ACTION_STATUSES),
  ]);
  return { row, stakeholders, deadlines, actions };
}

type Change = Pick<
  CaseUpdate,
  'status' | 'priority' | 'title' | 'description' | 'metadata' | 'assignee' | 'watchers'
> & { taskId?: string };

/**
 * The one way a case changes: a status move is checked against the table
 * (409 with the allowed moves otherwise); metadata merges key by key (null
 * removes a key). When anything changed, the timeline gets a `case.updated`
 * entry and the outbox a `case.updated` event, in the caller's transaction;
 * a change that changes nothing writes nothing.
 */
async function applyChange(
  trx: Db,
  row: CaseRow,
  change: Change,
  opts: { actor: string; note?: string },
): Promise<{ value: CaseRow; deliveries: number }> {
  if (change.status && change.status !== row.status) CASES.assertMove(row.status, change.status, 'A case');
  let metadata: Record<string, unknown> | undefined;
  if (change.metadata) {
    metadata = { ...row.metadata };
    for (const [k, v] of Object.entries(change.metadata))
      if (v === null) delete metadata[k];
      else metadata[k] = v;
  }
  const patch: CasePatch = {
    status: change.status,
    priority: change.priority,
    title: change.title,
    description: change.description,
    metadata,
    assignee: change.assignee,
    watchers: change.watchers,
    task_id: change.taskId,
  };
  const changes = changedFields(row as unknown as Record<string, unknown>, patch);
  if (changes.length === 0) return { value: row, deliveries: 0 };
  const updated = await updateCase(
    trx,
    row.id,
    Object.fromEntries(changes.map((k) => [k, patch[k as keyof CasePatch]])),
  );
  const moved = updated.status !== row.status ? { from: row.status } : {};
  const names = changes.map((k) => (k === 'task_id' ? 'taskId' : k));
  const text =
    `${moved.from ? `Status ${row.status} → ${updated.status}. ` : ''}Changed ` +
    `${names.join(', ')}${opts.note ? `: ${opts.note}` : ''}`;
  await writeEntry(trx, updated, {
    kind: 'case.updated',
    actor: opts.actor,
    text,
    data: { changes: names, ...moved, to: updated.status, note: opts.note ?? null },
  });
  const { deliveries } = await recordEvent(trx, {
    accountId: row.account_id,
    type: 'case.updated',
    subject: row.id,
    payload: {
      caseId: row.id,
      externalKey: updated.external_key,
      status: updated.status,
      priority: updated.priority,
      ...moved,
      changes: names,
    },
  });
  return { value: updated, deliveries };
}

/** Links a run to the case (once) and puts it on the timeline; the run's proof cards then show there too. */
async function attachRun(trx: Db, row: CaseRow, runId: string, actor: string): Promise<void> {
  if (await linkRun(trx, { caseId: row.id, runId, accountId: row.account_id })) {
    await writeEntry(trx, row, {
      kind: 'run.linked',
      actor,
      text: `Run ${runId} linked to the case`,
      refs: [{ kind: 'run', id: runId }],
    });
  }
}

/** Writes a new case, `open`, with its creation on the timeline; null when the external key is taken. */
async function openCase(trx: Db, accountId: string, body: CaseUpsert, actor: string): Promise<CaseRow | null> {
  const row = await insertCase(trx, {
    id: newId('case'),
    account_id: accountId,
    external_key: body.externalKey ?? null,
    title: body.title,
    description: body.description ?? null,
    status: 'open',
    priority: body.priority ?? 'normal',
    task_id: body.taskId ?? null,
    run_id: body.runId ?? null,
    metadata: body.metadata ?? {},
    assignee: body.assignee ?? null,
    watchers: body.watchers ?? [],
  });
  if (!row) return null;
  await writeEntry(trx, row, {
    kind: 'case.created',
    actor,
    text: `Case opened: ${row.title}`,
    refs: row.task_id ? [{ kind: 'task', id: row.task_id }] : [],
  });
  if (row.run_id) await attachRun(trx, row, row.run_id, actor);
  return row;
}

/**
 * POST /v1/cases: a new case, or, with an external key the account already
 * uses, that case with the body's fields applied (the same body again
 * changes nothing). The task and run named must be the account's (404).
 */
export async function upsertCase(
  deps: Deps,
  principal: Principal,
  body: CaseUpsert,
): Promise<{ created: boolean; record: CaseRecord }> {
  await checkRefs(deps.db, principal.accountId, [
    ...(body.taskId ? [{ kind: 'task' as const, id: body.taskId }] : []),
    ...(body.runId ? [{ kind: 'run' as const, id: body.runId }] : []),
  ]);
  const actor = actorOf(principal);
  const { created, row } = await afterCommit(
    deps,
    await deps.db.transaction(async (trx) => {
      const fresh = await openCase(trx, principal.accountId, body, actor);
      if (fresh) return { value: { created: true, row: fresh }, deliveries: 0 };
      const existing = (await getCaseByKey(trx, principal.accountId, body.externalKey!, true))!;
      const { title, description, priority, metadata, assignee, watchers, taskId } = body;
      const changed = await applyChange(
        trx,
        existing,
        { title, description, priority, metadata, assignee, watchers, taskId },
        { actor, note: `upsert by externalKey ${body.externalKey}` },
      );
      if (body.runId) await attachRun(trx, changed.value, body.runId, actor);
      return { value: { created: false, row: changed.value }, deliveries: changed.deliveries };
    }),
  );
  return { created, record: await caseRecord(deps.db, row) };
}

export async function findCases(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  query: CaseFilter & { limit?: number; cursor?: string },
) {
  return listCases(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
}

export async function fetchCase(deps: Pick<Deps, 'db'>, principal: Principal, caseId: string): Promise<CaseRecord> {
  return caseRecord(deps.db, await ownCase(deps.db, principal.accountId, caseId));
}

const UPDATABLE = ['status', 'priority', 'title', 'description', 'metadata', 'assignee', 'watchers'] as const;

/** POST /v1/cases/{caseId}/update: status (through the table), priority, texts, metadata, assignee, watchers. */
export async function updateCaseByClient(
  deps: Deps,
  principal: Principal,
  caseId: string,
  body: CaseUpdate,
): Promise<CaseRecord> {
  if (!UPDATABLE.some((k) => body[k] !== undefined)) {
    throw invalidPayload(`Nothing to update: give one of ${UPDATABLE.join(', ')}`, [
      { path: '', message: `needs one of ${UPDATABLE.join(', ')}`, keyword: 'required' },
    ]);
  }
  const row = await afterCommit(
    deps,
    await deps.db.transaction(async (trx) =>
      applyChange(trx, await lockCase(trx, principal.accountId, caseId), body, {
        actor: actorOf(principal),
        note: body.note,
      }),
    ),
  );
  return caseRecord(deps.db, row);
}

/**
 * Links a run to the case its metadata names (resolve's step, for runs and
 * templates): `caseId` must be the account's (null otherwise), `externalKey`
 * opens the case when the account has none under it.
 */
export async function linkRunToCase(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  runId: string,
  ref: { caseId: string } | { externalKey: string; title?: string },
  fallbackTitle: string,
): Promise<{ caseId: string; created: boolean } | null> {
  return deps.db.transaction(async (trx) => {
    const actor = `run:${runId}`;
    let row: CaseRow | null;
    let created = false;
    if ('caseId' in ref) row = await getCase(trx, accountId, ref.caseId, true);
    else {
      row = await openCase(
        trx,
        accountId,
        { externalKey: ref.externalKey, title: ref.title ?? fallbackTitle.slice(0, 500) },
        actor,
      );
      created = Boolean(row);
      row ??= await getCaseByKey(trx, accountId, ref.externalKey, true);
    }
    if (!row) return null;
    await attachRun(trx, row, runId, actor);
    return { caseId: row.id, created };
  });
}
