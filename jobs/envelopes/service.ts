import type { Deps } from '../../shared/deps.js';
import { agentsNamed } from '../agents/index.js';
import {
  getEnvelope,
  insertEnvelopes,
  listEnvelopes,
  moveEnvelope,
  type EnvelopeFilter,
  type EnvelopeRow,
  type NewEnvelope,
} from './repository.js';
import type { Db } from '../../shared/db/knex.js';
import { getRun } from '../../shared/db/runs.js';
import { getTask } from '../tasks/index.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { ENVELOPES } from './machine.js';
import { SERVICE_PARTY } from './schemas.js';

const actorOf = (principal: Principal) => `token:${principal.tokenId}`;

export interface EnvelopeFields {
  sender: string;
  recipient: string;
  runId?: string | null;
  taskId?: string | null;
  kind: string;
  payload: Record<string, unknown>;
  planId?: string | null;
}

/** A new envelope row, `queued`, its history starting with that. */
export function newEnvelope(principal: Principal, fields: EnvelopeFields): NewEnvelope {
  return {
    id: newId('msg'),
    account_id: principal.accountId,
    plan_id: fields.planId ?? null,
    kind: fields.kind,
    sender: fields.sender,
    recipient: fields.recipient,
    run_id: fields.runId ?? null,
    task_id: fields.taskId ?? null,
    payload: fields.payload,
    status: 'queued',
    history: [{ from: null, to: 'queued', at: new Date().toISOString(), actor: actorOf(principal), note: 'created' }],
  };
}

/**
 * The run and task an envelope names, and its parties other than this service, must be the account's (404 otherwise).
 */
export async function assertBelongs(
  db: Db,
  accountId: string,
  refs: { parties: string[]; runId?: string | null; taskId?: string | null },
): Promise<void> {
  const agents = [...new Set(refs.parties.filter((p) => p !== SERVICE_PARTY))];
  const known = new Set((await agentsNamed(db, accountId, agents)).map((a) => a.agent_id));
  const unknown = agents.find((a) => !known.has(a));
  if (unknown) throw notFound(`Agent ${unknown}`);
  if (refs.runId && !(await getRun(db, accountId, refs.runId))) throw notFound(`Run ${refs.runId}`);
  if (refs.taskId && !(await getTask(db, accountId, refs.taskId))) throw notFound(`Task ${refs.taskId}`);
}

export async function createEnvelope(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  input: {
    recipient: string;
    sender?: string;
    runId?: string;
    taskId?: string;
    kind?: string;
    payload: Record<string, unknown>;
  },
): Promise<EnvelopeRow> {
  if (!input.runId && !input.taskId)
    throw invalidPayload('An envelope belongs to a run or a task: send runId or taskId', [
      { path: '/runId', message: 'runId or taskId is required', keyword: 'required' },
    ]);
  const sender = input.sender ?? SERVICE_PARTY;
  await assertBelongs(deps.db, principal.accountId, {
    parties: [sender, input.recipient],
    runId: input.runId,
    taskId: input.taskId,
  });
  const [row] = await insertEnvelopes(deps.db, [
    newEnvelope(principal, { ...input, sender, kind: input.kind ?? 'message' }),
  ]);
  return row!;
}

export async function fetchEnvelope(deps: Pick<Deps, 'db'>, principal: Principal, msgId: string): Promise<EnvelopeRow> {
  const row = await getEnvelope(deps.db, principal.accountId, msgId);
  if (!row) throw notFound(`Envelope ${msgId}`);
  return row;
}

export function findEnvelopes(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  filter: EnvelopeFilter & { limit?: number; cursor?: string },
) {
  return listEnvelopes(deps.db, principal.accountId, filter, filter.limit ?? 50, filter.cursor);
}

/**
 * The one way an envelope's status changes: the move is checked against the
 * table under the row's lock (409 with the allowed moves otherwise), and the
 * history gains it in the same statement. A result belongs to `completed`,
 * an error to `failed` or `rejected`.
 */
export async function updateEnvelope(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  msgId: string,
  change: { status: string; note?: string; result?: Record<string, unknown>; error?: string },
): Promise<EnvelopeRow> {
  if (change.result !== undefined && change.status !== 'completed')
    throw invalidPayload('result is sent with status completed', [
      { path: '/result', message: 'only with status completed', keyword: 'dependentRequired' },
    ]);
  if (change.error !== undefined && !['failed', 'rejected'].includes(change.status))
    throw invalidPayload('error is sent with status failed or rejected', [
      { path: '/error', message: 'only with status failed or rejected', keyword: 'dependentRequired' },
    ]);
  return deps.db.transaction(async (trx) => {
    const row = await getEnvelope(trx, principal.accountId, msgId, true);
    if (!row) throw notFound(`Envelope ${msgId}`);
    ENVELOPES.assertMove(row.status, change.status, 'An envelope');
    const move = {
      from: row.status,
      to: change.status,
      at: new Date().toISOString(),
      actor: actorOf(principal),
      note: change.note ?? null,
    };
    return moveEnvelope(trx, msgId, { status: change.status, move, result: change.result, error: change.error });
  });
}
