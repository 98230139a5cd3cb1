import { FilterSelect } from './ui.js';
import { useState } from 'preact/hooks';
import { api, query, when } from './api';
import { eventsOf, useResource } from './live';
import { ErrorLine, Status, Table } from './ui';

const STATUSES = ['open', 'inProgress', 'resolved', 'failed', 'expired', 'canceled'];
const KINDS = ['call', 'message', 'review', 'logistics'];

type Mission = {
  proxyId: string;
  kind: string;
  task: string;
  status: string;
  assignee: string | null;
  expiresAt: string;
  runId: string | null;
};

/** Proxy missions: what people are asked to do for a run (call, message, review, logistics). */
export default function MissionsPage() {
  const [filters, setFilters] = useState({ status: '', kind: '' });
  const { data, error } = useResource<Mission[]>(
    () => api('GET', `/v1/proxy/missions${query({ limit: 100, ...filters })}`).then((r) => r.missions),
    [filters.status, filters.kind],
    eventsOf('proxy.*'),
  );
  const pick = (key: keyof typeof filters) => (e: Event) =>
    setFilters({ ...filters, [key]: (e.currentTarget as HTMLSelectElement).value });
  return (
    <>
      <h1>Proxy missions</h1>
      <div class="filters">
        <FilterSelect label="Status" value={filters.status} options={STATUSES} onChange={pick('status')} />
        <FilterSelect label="Kind" value={filters.kind} options={KINDS} onChange={pick('kind')} />
      </div>
      <ErrorLine error={error} />
      <Table
        caption="Proxy missions"
        rows={data ?? []}
        attrs={(m) => ({ 'data-mission': m.proxyId })}
        cols={[
          ['Mission', (m) => <a href={`#/missions/${m.proxyId}`}>{m.task}</a>],
          ['Kind', (m) => m.kind],
          ['Status', (m) => <Status value={m.status} />],
          ['Assignee', (m) => m.assignee ?? '—'],
          ['Expires', (m) => when(m.expiresAt)],
        ]}
        empty={data && 'No missions match.'}
      />
    </>
  );
}
