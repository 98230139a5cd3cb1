import type { Deps } from '../../../shared/deps.js';
import { caseDeadlines, casesWithOverdueDeadlines, markOverdueMissed, type DeadlineRow } from './parts-repository.js';
import { iso } from '../../../shared/db/knex.js';
import { recordEvent } from '../../../shared/db/outbox.js';
import type { Principal } from '../../../shared/schemas/auth.js';
import { actorOf, afterCommit, lockCase, writeEntry } from './workspace.js';

/** Cases one clock sweep reviews at most; a backlog drains over the next sweeps. */
const BATCH = 200;

/**
 * The deadline review of one case, by route or by the clock: its `open`
 * deadlines past due become `missed` in one statement (so each is marked
 * once, however many reviews race), each with a timeline entry and a
 * `case.deadline.missed` event, in one transaction.
 */
async function reviewCase(
  deps: Deps,
  accountId: string,
  caseId: string,
  actor: string,
): Promise<{ missed: DeadlineRow[]; deadlines: DeadlineRow[] }> {
  const missed = await afterCommit(
    deps,
    await deps.db.transaction(async (trx) => {
      const row = await lockCase(trx, accountId, caseId);
      const marked = await markOverdueMissed(trx, row.id);
      let deliveries = 0;
      for (const d of marked) {
        const dueAt = iso(d.due_at)!;
        await writeEntry(trx, row, {
          kind: 'deadline.missed',
          actor,
          text: `Deadline "${d.title}" (due ${dueAt}) was missed`,
          data: { deadlineId: d.id, dueAt },
        });
        deliveries += (
          await recordEvent(trx, {
            accountId,
            type: 'case.deadline.missed',
            subject: row.id,
            payload: { caseId: row.id, deadlineId: d.id, title: d.title, dueAt, owner: d.owner },
          })
        ).deliveries;
      }
      return { value: marked, deliveries };
    }),
  );
  return { missed, deadlines: await caseDeadlines(deps.db, caseId) };
}

/** POST /v1/cases/{caseId}/deadlines/review. */
export function reviewDeadlines(deps: Deps, principal: Principal, caseId: string) {
  return reviewCase(deps, principal.accountId, caseId, actorOf(principal));
}

/**
 * The clock's `cases.deadlines` sweep (every 5 minutes): the same review for every case with an open deadline past due.
 */
export async function sweepDeadlines(deps: Deps): Promise<{ cases: number; missed: number }> {
  const due = await casesWithOverdueDeadlines(deps.db, BATCH);
  let missed = 0;
  for (const c of due) missed += (await reviewCase(deps, c.account_id, c.case_id, 'clock')).missed.length;
  return { cases: due.length, missed };
}
