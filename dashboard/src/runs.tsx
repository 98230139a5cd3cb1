import { useEffect, useState } from 'preact/hooks';
import { api, when } from './api';

const STATUSES = [
  'queued',
  'running',
  'NEEDS_INPUT',
  'awaitingApproval',
  'ready',
  'delivered',
  'blocked',
  'failed',
  'canceled',
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
];
const REFRESH_MS = 2000;

type RunSummary = { runId: string; status: string; route: string[]; createdAt: string; finishedAt: string | null };

/** The account's runs, newest first, refreshed every two seconds while the page is open. */
export function RunsPage() {
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [filters, setFilters] = useState({ status: '', domain: '' });
  const [error, setError] = useState('');
  useEffect(() => {
    let stop = false;
    const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v)).toString();
    const tick = async () => {
      try {
        const r = await api('GET', `/v1/runs?limit=50${q ? `&${q}` : ''}`);
        if (!stop) {
          setRuns(r.runs);
          setError('');
        }
      } catch (e) {
        if (!stop) setError((e as Error).message);
      }
      if (!stop) timer = setTimeout(tick, REFRESH_MS);
    };
    let timer = setTimeout(tick, 0);
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [filters.status, filters.domain]);
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
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th>Run</th>
            <th>Status</th>
            <th>Route</th>
            <th>Created</th>
            <th>Finished</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr data-run={r.runId}>
              <td>
                <a href={`#/runs/${r.runId}`}>
                  <code>{r.runId}</code>
                </a>
              </td>
              <td>
                <span class={`status s-${r.status}`}>{r.status}</span>
              </td>
              <td>{r.route.join(' → ')}</td>
              <td>{when(r.createdAt)}</td>
              <td>{when(r.finishedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.length === 0 && (
        <p>
          No runs yet. Start one with <code>POST /v1/orchestrator/run</code>.
        </p>
      )}
    </>
  );
}
