import { FilterSelect } from './ui.js';
import { useState } from 'preact/hooks';
import { api, query, when } from './api';
import { useResource } from './live';
import { ErrorLine, Status, Table } from './ui';

const STATUSES = [
  'queued',
  'running',
  'NEEDS_INPUT',
  'awaitingProxy',
  'awaitingApproval',
  'awaitingAction',
  'ready',
  'delivered',
  'blocked',
  'failed',
  'canceled',
  'expired',
];
const DOMAINS = [
  'hunt',
  'resolve',
  'proxy',
  'pay',
  'bridge',
  'environment',
  'cicd',
  'kubernetes',
  'incident',
  'delivery',
  'migration',
  'security',
  'benchmark',
];
type RunSummary = { runId: string; status: string; route: string[]; createdAt: string; finishedAt: string | null };

/**
 * The account's stream of runs (GET /v1/runs/events): a run made anywhere (the API, a schedule, another tab) or one
 * whose status moved reloads the list. Nothing polls.
 */
const RUNS_STREAM = { url: '/v1/runs/events', types: ['run.created', 'run.changed'] };

export function RunsPage() {
  const [filters, setFilters] = useState({ status: '', domain: '' });
  const { data: runs, error } = useResource<RunSummary[]>(
    () => api('GET', `/v1/runs${query({ limit: 50, ...filters })}`).then((r) => r.runs),
    [filters.status, filters.domain],
    RUNS_STREAM,
  );
  const pick = (key: 'status' | 'domain') => (e: Event) =>
    setFilters({ ...filters, [key]: (e.currentTarget as HTMLSelectElement).value });
  return (
    <>
      <h1>Runs</h1>
      <div class="filters">
        <FilterSelect label="Status" value={filters.status} options={STATUSES} onChange={pick('status')} />
        <FilterSelect label="Domain" value={filters.domain} options={DOMAINS} onChange={pick('domain')} />
      </div>
      <ErrorLine error={error} />
      <Table
        caption="Runs, newest first"
        rows={runs ?? []}
        attrs={(r) => ({ 'data-run': r.runId })}
        cols={[
          [
            'Run',
            (r) => (
              <a href={`#/runs/${r.runId}`}>
                <code>{r.runId}</code>
              </a>
            ),
          ],
          ['Status', (r) => <Status value={r.status} />],
          ['Route', (r) => r.route.join(' → ')],
          ['Created', (r) => when(r.createdAt)],
          ['Finished', (r) => when(r.finishedAt)],
        ]}
        empty={
          runs && (
            <>
              No runs yet. Start one with <code>POST /v1/orchestrator/run</code>.
            </>
          )
        }
      />
    </>
  );
}
