import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, when } from './api';

/** An inbox item as GET /v1/inbox lists it (docs/api/inbox.md). */
export type InboxItem = {
  itemId: string;
  kind: 'choice' | 'approval' | 'mission';
  domain: string;
  runId: string | null;
  gate: string | null;
  title: string;
  summary: string;
  createdAt: string;
  expiresAt: string | null;
  escalatedAt: string | null;
  submittedBy: string | null;
  assignee: string | null;
  claimedBy: string | null;
  claimExpiresAt: string | null;
};

export type Member = { memberId: string; email: string; name: string; role: string; status: string };

/** The live stream of the account's inbox and the frames that say something changed. */
export const INBOX_STREAM = { url: '/v1/inbox/events', types: ['item.added', 'item.changed', 'item.removed'] };

/**
 * The account's members, to name assignees and offer them. Reading them needs audit:read: without it the page names
 * members by id and offers only "me".
 */
export function useMembers(): Member[] {
  const [members, setMembers] = useState<Member[]>([]);
  useEffect(() => {
    api('GET', '/v1/members?status=active')
      .then((r) => setMembers(r.members))
      .catch(() => setMembers([]));
  }, []);
  return members;
}

export const nameOf = (members: Member[], memberId: string | null, me?: string) => {
  if (!memberId) return '—';
  if (memberId === me) return 'you';
  const m = members.find((x) => x.memberId === memberId);
  return m ? m.email : memberId;
};

/**
 * A refusal in words: who holds the claim and until when, why the submitter may not approve, that the item is no
 * longer waiting; the service's own message otherwise.
 */
export function refusal(e: unknown, members: Member[], me?: string): string {
  if (!(e instanceof ApiError)) return (e as Error).message;
  if (e.code === 'selfApproval')
    return `You submitted this run, so you may not approve it: another approver must (${e.message}).`;
  if (e.status === 409 && typeof e.details.claimedBy === 'string')
    return (
      `Claimed by ${nameOf(members, e.details.claimedBy, me)} until ${when(String(e.details.claimExpiresAt))}: ` +
      'wait until they release it or the claim lapses.'
    );
  if (e.status === 404) return 'This item is no longer waiting: it was answered, expired or canceled.';
  if (e.status === 413) return `Too large for the service: ${e.message}`;
  return e.message;
}
