/** Pure rules of the inbox: kinds, ages, cursors, titles, what an approval does, who hears. No I/O. */
import { invalidPayload } from '../../shared/errors.js';
import type { Channel, ItemKind, NotificationChoices, NoticeEvent } from './schemas.js';

/** How long a claim holds before it lapses (a person who walked away does not block the item for good). */
export const CLAIM_MINUTES = 30;

/** The wait kinds a person answers, by item kind; a mission's waitpoint (awaitingProxy) is shown as its mission. */
export const WAIT_KINDS: Record<'choice' | 'approval', string> = {
  choice: 'NEEDS_INPUT',
  approval: 'awaitingApproval',
};

export function itemKindOf(waitKind: string): ItemKind | null {
  if (waitKind === 'NEEDS_INPUT') return 'choice';
  if (waitKind === 'awaitingApproval') return 'approval';
  if (waitKind === 'awaitingProxy') return 'mission';
  return null;
}

/** Which store an item id names, by its prefix. */
export function sourceOf(itemId: string): 'waitpoint' | 'mission' | null {
  if (/^wait_[0-9a-f]{32}$/.test(itemId)) return 'waitpoint';
  if (/^prx_[0-9a-f]{32}$/.test(itemId)) return 'mission';
  return null;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `2h` → 7,200,000 (the schema admits only `<n><s|m|h|d>`). */
export function ageMs(age: string): number {
  return Number(age.slice(0, -1)) * UNIT_MS[age.slice(-1)]!;
}

/** The keyset position of the last item of a page, opaque to the client. */
export function encodeCursor(createdAt: string, itemId: string): string {
  return Buffer.from(`${createdAt}|${itemId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt)) || !sourceOf(id))
    throw invalidPayload('cursor is not one this list gave', [
      { path: 'query:/cursor', message: 'not a cursor of GET /v1/inbox', keyword: 'format' },
    ]);
  return { createdAt: new Date(createdAt).toISOString(), id };
}

export const inboxLink = (itemId: string) => `/dashboard/#/inbox/${itemId}`;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** What an approval does when it is approved, in words, from what its step recorded. */
export function ifApproved(domain: string, gate: string, payload: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const purchase = payload.purchase as Record<string, unknown> | undefined;
  if (purchase)
    lines.push(
      `Pays ${String(purchase.amount)} ${String(purchase.currency ?? '')} to ` +
        `${String(purchase.vendorId ?? 'the vendor')}` +
        `${purchase.title ? ` for "${String(purchase.title)}"` : ''}, under the mandate of the run's task`,
    );
  if (gate === 'deploy')
    lines.push(
      `Deploys ${String(payload.service ?? 'the service')}@${String(payload.version ?? '?')} to ` +
        `${String(payload.environment ?? 'the environment')}`,
    );
  if (gate === 'autonomy' || payload.needsGrant)
    lines.push(`Performs what autonomy did not cover: ${JSON.stringify(payload.needsGrant ?? payload.reasons ?? [])}`);
  if (text(payload.diff) || text(payload.patch)) lines.push('Applies the diff below');
  if (lines.length === 0) lines.push(`The ${domain} step goes on from where it waits`);
  return lines;
}

export interface TitleSource {
  kind: ItemKind;
  domain: string;
  gate: string | null;
  payload: Record<string, unknown>;
  request: string | null;
  task?: string;
}

export function titleOf(s: TitleSource): { title: string; summary: string } {
  const question = text(s.payload.question) ?? text(s.payload.message);
  if (s.kind === 'mission')
    return { title: clip(`Mission: ${s.task ?? 'a task for a person'}`), summary: clip(s.task ?? '') };
  if (s.kind === 'choice') {
    const n = Array.isArray(s.payload.choices) ? s.payload.choices.length : 0;
    return { title: clip(`Choose one of ${n} candidates (${s.domain})`), summary: clip(question ?? s.request ?? '') };
  }
  return {
    title: clip(`Approve the ${s.gate ?? 'waitpoint'} gate (${s.domain})`),
    summary: clip(ifApproved(s.domain, s.gate ?? 'waitpoint', s.payload).join('; ') || (question ?? '')),
  };
}

/** Everyone is told of every kind by email and chat until they choose otherwise. */
export const DEFAULT_CHOICES: NotificationChoices = {
  choice: { email: true, chat: true },
  approval: { email: true, chat: true },
  mission: { email: true, chat: true },
};

export function channelsFor(choices: NotificationChoices | null, kind: ItemKind): Channel[] {
  const c = (choices ?? DEFAULT_CHOICES)[kind];
  return (['email', 'chat'] as const).filter((ch) => c[ch]);
}

export interface NoticeText {
  subject: string;
  text: string;
  link: string;
}

/** The words of a notification; an escalation keeps the subjects its mail always had. */
export function noticeText(
  n: { event: NoticeEvent; kind: ItemKind; itemId: string; runId: string | null; gate: string | null },
  title: string,
  baseUrl: string,
  expiresAt: string | null,
): NoticeText {
  const link = `${baseUrl.replace(/\/$/, '')}${inboxLink(n.itemId)}`;
  const run = n.runId ? `run ${n.runId}` : `mission ${n.itemId}`;
  const what = n.kind === 'approval' ? 'Approval' : n.kind === 'choice' ? 'Choice' : 'Mission';
  const subject =
    n.event === 'created'
      ? `New ${what.toLowerCase()} for you: ${title}`
      : n.event === 'escalated'
        ? n.kind === 'approval'
          ? `Approval waiting: ${run} (${n.gate ?? 'waitpoint'}) expires ${expiresAt}`
          : `${what} waiting: ${run} expires ${expiresAt}`
        : `${what} expired unanswered: ${title}`;
  const body =
    n.event === 'created'
      ? `${title}.\n${expiresAt ? `Unanswered, it expires at ${expiresAt}.\n` : ''}`
      : n.event === 'escalated'
        ? `${title} is still unanswered and expires at ${expiresAt}` +
          (n.kind === 'approval' ? ': unanswered, it fails closed (the submitter of the run cannot approve it)' : '') +
          '.\n'
        : `${title} was not answered in time: ${n.kind === 'approval' ? 'it failed closed' : 'it expired'}.\n`;
  return { subject: clip(subject, 250), text: `${body}Open it: ${link}\n`, link };
}
