import { useEffect, useState } from 'preact/hooks';
import { api, query, when } from './api';
import { follow, useResource } from './live';
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
/** Runs still moving (every other status rests until someone or something answers). */
const ACTIVE = ['queued', 'running'];
/**
 * How many moving runs the list follows at once: each is an SSE connection, and a browser holds six per origin over
 * HTTP/1.1 (the run page and other tabs need theirs).
 */
const MAX_FOLLOWED = 3;

type RunSummary = { runId: string; status: string; route: string[]; createdAt: string; finishedAt: string | null };

/**
 * The runs whose statuses are still moving are followed over their own SSE streams (`/v1/runs/{id}/events`): a
 * hand-off or a rest reloads the list. The service has no account-wide stream of runs yet, so a run started
 * elsewhere appears when the member returns to the tab or presses Refresh; nothing polls.
 */
function useFollowMoving(runs: RunSummary[] | undefined, reload: () => void) {
  const moving = (runs ?? [])
    .filter((r) => ACTIVE.includes(r.status))
    .slice(0, MAX_FOLLOWED)
    .map((r) => r.runId);
  const key = moving.join(',');
  useEffect(() => {
    const stops = moving.map((id) => follow(`/v1/runs/${id}/events`, ['handoff', 'final'], reload, 'final'));
    return () => stops.forEach((stop) => stop());
  }, [key]);
}

export function RunsPage() {
  const [filters, setFilters] = useState({ status: '', domain: '' });
  const {
    data: runs,
    error,
    reload,
  } = useResource<RunSummary[]>(
    () => api('GET', `/v1/runs${query({ limit: 50, ...filters })}`).then((r) => r.runs),
    [filters.status, filters.domain],
  );
  useFollowMoving(runs, () => void reload());
  const pick = (key: 'status' | 'domain') => (e: Event) =>
    setFilters({ ...filters, [key]: (e.currentTarget as HTMLSelectElement).value });
  return (
    <>
      <h1>Runs</h1>
      <div class="filters">
        <label>
          Status{' '}
          <select onChange={pick('status')} value={filters.status}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Domain{' '}
          <select onChange={pick('domain')} value={filters.domain}>
            <option value="">any</option>
            {DOMAINS.map((d) => (
              <option>{d}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void reload()}>
          Refresh
        </button>
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
