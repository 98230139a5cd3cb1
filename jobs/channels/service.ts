import type { Deps } from '../../shared/deps.js';
import {
  getThread,
  getTouchpoint,
  insertTouchpoint,
  listThreads,
  listTouchpoints,
  threadTimeline,
  upsertThread,
  type ThreadFilter,
  type ThreadRow,
  type TouchpointFilter,
} from './repository.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { actionsOfThread } from '../bridge/index.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { ThreadCreate, TouchpointCreate } from './schemas.js';

/** Creates a thread, or updates the one its externalKey names (same threadId). */
export async function upsertThreadByClient(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  body: ThreadCreate,
): Promise<ThreadRow> {
  return upsertThread(deps.db, {
    id: newId('thr'),
    account_id: principal.accountId,
    external_key: body.externalKey ?? null,
    channel: body.channel,
    subject: body.subject ?? null,
    participants: body.participants ?? [],
    case_id: body.caseId ?? null,
    conversation_id: body.conversationId ?? null,
    mission_id: body.missionId ?? null,
    provider_id: body.providerId ?? null,
  });
}

export async function findThreads(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  q: ThreadFilter & { limit?: number; cursor?: string },
) {
  return listThreads(deps.db, principal.accountId, q, q.limit ?? 50, q.cursor);
}

export async function fetchThread(deps: Pick<Deps, 'db'>, principal: Principal, threadId: string): Promise<ThreadRow> {
  const row = await getThread(deps.db, principal.accountId, threadId);
  if (!row) throw notFound(`Thread ${threadId}`);
  return row;
}

const encodeCursor = (at: Date, ref: string) => Buffer.from(`${at.toISOString()}|${ref}`).toString('base64url');

function decodeCursor(cursor: string): { at: Date; ref: string } {
  const [at, ref] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const when = new Date(at ?? '');
  if (!ref || Number.isNaN(when.getTime()))
    throw invalidPayload('cursor is not one this timeline gave', [
      { path: '/cursor', message: 'unknown cursor', keyword: 'format' },
    ]);
  return { at: when, ref };
}

/** The thread's touchpoints, actions and callbacks in ascending `at`, a page at a time. */
export async function timelineOf(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  threadId: string,
  q: { limit?: number; cursor?: string },
) {
  const thread = await fetchThread(deps, principal, threadId);
  const limit = q.limit ?? 100;
  const rows = await threadTimeline(
    deps.db,
    thread.id,
    actionsOfThread(deps.db, thread.id),
    limit + 1,
    q.cursor ? decodeCursor(q.cursor) : undefined,
  );
  const entries = rows.slice(0, limit);
  const last = entries[entries.length - 1];
  return {
    thread,
    entries,
    nextCursor: rows.length > limit && last ? encodeCursor(new Date(last.at), last.ref) : null,
  };
}

/** A touchpoint on a thread of the caller's (404 otherwise); refs not given are the thread's. */
export async function recordTouchpoint(deps: Pick<Deps, 'db'>, principal: Principal, body: TouchpointCreate) {
  const thread = await fetchThread(deps, principal, body.threadId);
  return insertTouchpoint(deps.db, {
    id: newId('tp'),
    account_id: principal.accountId,
    thread_id: thread.id,
    direction: body.direction,
    status: body.status ?? 'recorded',
    body: body.body ?? null,
    data: body.data ?? {},
    case_id: body.caseId ?? thread.case_id,
    conversation_id: body.conversationId ?? thread.conversation_id,
    provider_id: body.providerId ?? thread.provider_id,
    ...(body.at ? { at: new Date(body.at) } : {}),
  });
}

export async function findTouchpoints(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  q: TouchpointFilter & { limit?: number; cursor?: string },
) {
  return listTouchpoints(deps.db, principal.accountId, q, q.limit ?? 50, q.cursor);
}

export async function fetchTouchpoint(deps: Pick<Deps, 'db'>, principal: Principal, touchpointId: string) {
  const row = await getTouchpoint(deps.db, principal.accountId, touchpointId);
  if (!row) throw notFound(`Touchpoint ${touchpointId}`);
  return row;
}
