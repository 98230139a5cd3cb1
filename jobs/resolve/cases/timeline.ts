import type { Deps } from '../../../shared/deps.js';
import { getEntry, timelinePage, type TimelineRow } from './timeline-repository.js';
import { invalidPayload } from '../../../shared/errors.js';
import type { Principal } from '../../../shared/schemas/auth.js';
import type { TimelineAppend } from './schemas.js';
import { decodeTimelineCursor, encodeTimelineCursor } from './logic.js';
import { actorOf, checkRefs, lockCase, ownCase, writeEntry } from './workspace.js';

/** POST /v1/cases/{caseId}/events: an entry of the client's own (a call, an email, a note), at the time it happened. */
export async function appendEntry(
  deps: Deps,
  principal: Principal,
  caseId: string,
  body: TimelineAppend,
): Promise<TimelineRow> {
  await checkRefs(deps.db, principal.accountId, body.refs);
  const id = await deps.db.transaction(async (trx) => {
    const row = await lockCase(trx, principal.accountId, caseId);
    return writeEntry(trx, row, {
      kind: body.kind,
      actor: actorOf(principal),
      text: body.text,
      refs: body.refs ?? [],
      at: body.at,
    });
  });
  return (await getEntry(deps.db, id))!;
}

/** GET /v1/cases/{caseId}/timeline: every change of the case, oldest first, a page at a time. */
export async function caseTimeline(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  caseId: string,
  query: { limit?: number; cursor?: string },
) {
  const after = query.cursor ? decodeTimelineCursor(query.cursor) : undefined;
  if (after === null)
    throw invalidPayload('cursor is not a nextCursor of this timeline', [
      { path: '/cursor', message: 'unknown cursor', keyword: 'cursor' },
    ]);
  const row = await ownCase(deps.db, principal.accountId, caseId);
  const { rows, more } = await timelinePage(deps.db, row.id, row.account_id, query.limit ?? 50, after);
  const last = rows[rows.length - 1];
  return { rows, nextCursor: more && last ? encodeTimelineCursor({ atUs: last.at_us, id: last.id }) : null };
}
