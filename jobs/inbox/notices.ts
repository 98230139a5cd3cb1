import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { sendMail } from '../../shared/mail.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { activeMembers } from '../accounts/index.js';
import { gateOfWaitpoint } from '../approval-gates.js';
import { checkAction, connectorsWithCapability, enqueueAction, writeAction, type ActionRow } from '../bridge/index.js';
import type { InboxNotice } from '../engine-hooks.js';
import { channelsFor, itemKindOf, noticeText, titleOf } from './logic.js';
import { claimNotices, insertNotices, noticesDue, settleNotice, type NoticeRow } from './notices-repository.js';
import { assignmentsOf, choicesOfMembers } from './repository.js';
import type { ItemKind, NoticeEvent } from './schemas.js';
import { publishChange } from './stream.js';

/** The queue notifications go out on (served by the delivery process, beside webhooks). */
export const INBOX_NOTIFY_QUEUE = 'inbox-notify';
/** A sender that took a row and did not settle it in this long died: the row is taken again. */
const LEASE_SECONDS = 120;
const BATCH = 50;
const MAX_ATTEMPTS = 5;

export interface ItemNotice {
  accountId: string;
  event: NoticeEvent;
  itemId: string;
  kind: ItemKind;
  runId: string | null;
  gate: string | null;
  title: string;
  expiresAt: string | null;
  /** Who asked for it (a run's submitter, a mission's creator): told of a choice or a mission nobody is assigned. */
  submittedBy: string | null;
}

/**
 * Who hears of an item: its assignee; else an approval's approvers (owners, admins, approvers), a choice's or a
 * mission's submitter; else the owners and admins, so nothing waits unseen.
 */
async function recipients(trx: Db, n: ItemNotice): Promise<string[]> {
  const [assigned] = await assignmentsOf(trx, n.accountId, [n.itemId]);
  const ids = (who: string[]) => activeMembers(trx, n.accountId, { ids: who });
  if (assigned?.assignee) {
    const found = await ids([assigned.assignee]);
    if (found.length > 0) return found.map((m) => m.id);
  }
  if (n.kind === 'approval')
    return (await activeMembers(trx, n.accountId, { roles: ['owner', 'admin', 'approver'] })).map((m) => m.id);
  const submitter = n.submittedBy ? await ids([n.submittedBy]) : [];
  if (submitter.length > 0) return submitter.map((m) => m.id);
  return (await activeMembers(trx, n.accountId, { roles: ['owner', 'admin'] })).map((m) => m.id);
}

/**
 * Writes the notifications of an item event in the caller's transaction (the outbox: they exist exactly when the
 * change they report commits), one per recipient and channel each chose; the caller wakes the sender after commit
 * (`wakeNotices`), and the `inbox.notify` sweep does if it did not. Returns how many rows it wrote.
 */
export async function noticeItem(trx: Db, n: ItemNotice): Promise<number> {
  const members = await recipients(trx, n);
  const choices = await choicesOfMembers(trx, n.accountId, members);
  const message = { kind: n.kind, runId: n.runId, gate: n.gate, title: n.title, expiresAt: n.expiresAt };
  return insertNotices(
    trx,
    members.flatMap((memberId) =>
      channelsFor(choices.get(memberId) ?? null, n.kind).map((channel) => ({
        account_id: n.accountId,
        item_id: n.itemId,
        event: n.event,
        member_id: memberId,
        channel,
        message,
      })),
    ),
  );
}

/** The engine hook: a run's waitpoint appeared, escalated or expired (choices, approvals; a mission's waitpoint). */
export async function noticeWaitpoint(trx: Db, n: InboxNotice): Promise<number> {
  const wp = n.waitpoint;
  const kind = itemKindOf(wp.kind);
  if (!kind) return 0;
  const missionId = typeof wp.payload.proxyId === 'string' ? wp.payload.proxyId : null;
  if (kind === 'mission' && !missionId) return 0;
  const gate = kind === 'approval' ? gateOfWaitpoint(wp) : null;
  const task = typeof wp.payload.task === 'string' ? wp.payload.task : undefined;
  return noticeItem(trx, {
    accountId: n.accountId,
    event: n.event,
    itemId: kind === 'mission' ? missionId! : wp.id,
    kind,
    runId: wp.runId,
    gate,
    title: titleOf({ kind, domain: wp.domain, gate, payload: wp.payload, request: null, task }).title,
    expiresAt: wp.expiresAt,
    submittedBy: n.submittedBy,
  });
}

/** Wakes the sender now; wake-ups of one second coalesce, and a sender goes on while anything is due. */
export async function wakeNotices(deps: Pick<Deps, 'queues' | 'log'>): Promise<void> {
  await deps.queues
    .queue(INBOX_NOTIFY_QUEUE)
    .add('send', {}, { jobId: `send.${Math.ceil(Date.now() / 1000)}`, removeOnComplete: true, removeOnFail: 100 })
    .catch((err: Error) => deps.log.warn({ err: err.message }, 'inbox sender not woken; the clock will'));
}

/** Who posts a chat notification: the service itself, for the account, with the one scope a connector call needs. */
const notifier = (accountId: string): Principal => ({
  accountId,
  tokenId: 'inbox:notify',
  scopes: ['bridge:write'],
  plan: 'team',
  activated: true,
});

/**
 * Sends one row. Email: shared/mail.ts (recorded in outbound_mails, sent by SMTP when SMTP_URL is set). Chat: a
 * bridge action (`msg.chat` to the member's email: Slack opens a DM) written in the same transaction that settles
 * the row, so a row makes at most one action, and the bridge sends that action once (its idempotency key).
 */
async function sendOne(deps: Deps, row: NoticeRow): Promise<void> {
  const [member] = await activeMembers(deps.db, row.account_id, { ids: [row.member_id] });
  if (!member) return void (await settleNotice(deps.db, row.id, 'skipped', { error: 'member is not active' }));
  const base = deps.config.PUBLIC_BASE_URL ?? `http://localhost:${deps.config.PORT}`;
  const words = noticeText(
    { event: row.event, kind: row.message.kind, itemId: row.item_id, runId: row.message.runId, gate: row.message.gate },
    row.message.title,
    base,
    row.message.expiresAt,
  );
  if (row.channel === 'email') {
    const sent = await sendMail(deps, { accountId: row.account_id, to: member.email, ...words });
    if (sent !== 'failed') return void (await settleNotice(deps.db, row.id, 'sent'));
    const to = row.attempts >= MAX_ATTEMPTS ? 'failed' : 'pending';
    return void (await settleNotice(deps.db, row.id, to, { error: 'the mail could not be sent' }));
  }
  const [connector] = await connectorsWithCapability(deps.db, row.account_id, 'msg.chat', 1);
  if (!connector) return void (await settleNotice(deps.db, row.id, 'skipped', { error: 'no msg.chat connector' }));
  let action: ActionRow | null = null;
  try {
    const checked = await checkAction(deps, notifier(row.account_id), {
      connectorId: connector.connector_id,
      capability: 'msg.chat',
      input: { email: member.email, text: `*${words.subject}*\n${words.text}` },
    });
    action = await deps.db.transaction(async (trx) => {
      const written = await writeAction(trx, row.account_id, checked, 'inbox:notify');
      if (!(await settleNotice(trx, row.id, 'sent', { bridgeActionId: written.id })))
        throw new Error('taken by another sender');
      return written;
    });
  } catch (err) {
    const message = (err as Error).message.slice(0, 500);
    if (message === 'taken by another sender') return;
    return void (await settleNotice(deps.db, row.id, 'failed', { error: message }));
  }
  await enqueueAction(deps, action);
}

/** The `inbox-notify` job: sends what is due, batch after batch, until nothing is. */
export async function sendNotices(deps: Deps): Promise<{ sent: number }> {
  let sent = 0;
  for (;;) {
    const rows = await claimNotices(deps.db, BATCH, LEASE_SECONDS);
    if (rows.length === 0) break;
    for (const row of rows) {
      await sendOne(deps, row).catch(async (err: Error) => {
        deps.log.warn({ err: err.message, notice: row.id }, 'inbox notification not sent; retried');
        await settleNotice(deps.db, row.id, row.attempts >= MAX_ATTEMPTS ? 'failed' : 'pending', {
          error: err.message.slice(0, 500),
        });
      });
      sent++;
    }
    // Once per item (it has a row per recipient and channel): each message makes every open stream read again.
    const changed = new Map(rows.map((r) => [`${r.account_id}/${r.item_id}`, r]));
    for (const row of changed.values()) publishChange(deps, row.account_id, row.item_id);
  }
  return { sent };
}

/** The `inbox.notify` sweep (every minute): wakes the sender when something is due (a wake-up lost, a sender died). */
export async function sweepNotices(deps: Deps): Promise<{ due: boolean }> {
  const due = await noticesDue(deps.db, LEASE_SECONDS);
  if (due) await wakeNotices(deps);
  return { due };
}
