import { FilterSelect } from './ui.js';
import { useState } from 'preact/hooks';
import { api, query, when } from './api';
import { useResource } from './live';
import type { Account } from './main';
import { INBOX_STREAM, nameOf, useMembers, type InboxItem } from './inbox-common';
import { ErrorLine, Table } from './ui';

const KINDS = ['choice', 'approval', 'mission'];
const DOMAINS = [
  'hunt',
  'pay',
  'proxy',
  'delivery',
  'resolve',
  'bridge',
  'cicd',
  'kubernetes',
  'incident',
  'migration',
];
/** Ages as GET /v1/inbox takes them in `olderThan`: created at least this long ago. */
const AGES: Array<[string, string]> = [
  ['15m', '15 minutes'],
  ['1h', 'an hour'],
  ['1d', 'a day'],
  ['7d', 'a week'],
];

/**
 * Everything waiting for a person in the account, with filters. The list follows GET /v1/inbox/events (an item
 * added, changed or removed reloads it) and nothing polls; the count line and the error line keep their place, so a
 * live update moves nothing but the rows.
 */
export default function InboxPage({ account }: { account: Account }) {
  const [filters, setFilters] = useState({ kind: '', domain: '', olderThan: '', assignee: '' });
  const members = useMembers();
  const me = account.member?.memberId;
  const { data, error } = useResource<InboxItem[]>(
    () => api('GET', `/v1/inbox${query({ limit: 100, ...filters })}`).then((r) => r.items),
    [filters.kind, filters.domain, filters.olderThan, filters.assignee],
    INBOX_STREAM,
  );
  const pick = (key: keyof typeof filters) => (e: Event) =>
    setFilters({ ...filters, [key]: (e.currentTarget as HTMLSelectElement).value });
  const count = data === undefined ? '' : `${data.length} ${data.length === 1 ? 'item waits' : 'items wait'}.`;
  return (
    <>
      <h1>Inbox</h1>
      <p>
        Choices, approvals and missions waiting for a person. <a href="#/settings/notifications">Notifications</a>
      </p>
      <div class="filters">
        <FilterSelect label="Kind" value={filters.kind} options={KINDS} onChange={pick('kind')} />
        <FilterSelect label="Domain" value={filters.domain} options={DOMAINS} onChange={pick('domain')} />
        <label>
          Waiting for{' '}
          <select value={filters.olderThan} onChange={pick('olderThan')}>
            <option value="">any time</option>
            {AGES.map(([v, label]) => (
              <option value={v}>at least {label}</option>
            ))}
          </select>
        </label>
        <label>
          Assignee{' '}
          <select value={filters.assignee} onChange={pick('assignee')}>
            <option value="">anyone</option>
            <option value="me">me</option>
            <option value="none">nobody</option>
            {members
              .filter((m) => m.memberId !== me)
              .map((m) => (
                <option value={m.memberId}>{m.email}</option>
              ))}
          </select>
        </label>
      </div>
      <p class="line" role="status" data-testid="inbox-count">
        {count}
      </p>
      <ErrorLine error={error} />
      <Table
        caption="Items waiting for a person, newest first"
        rows={data ?? []}
        attrs={(i) => ({ 'data-item': i.itemId, 'data-kind': i.kind })}
        cols={[
          ['Item', (i) => <a href={`#/inbox/${i.itemId}`}>{i.title}</a>],
          ['Kind', (i) => `${i.kind}${i.gate ? ` (${i.gate})` : ''}`],
          ['Domain', (i) => i.domain],
          ['Summary', (i) => i.summary],
          ['Assignee', (i) => nameOf(members, i.assignee, me)],
          ['Claimed by', (i) => nameOf(members, i.claimedBy, me)],
          ['Waiting since', (i) => when(i.createdAt)],
          ['Expires', (i) => when(i.expiresAt)],
        ]}
        empty={data && 'Nothing waits for a person here.'}
      />
    </>
  );
}
