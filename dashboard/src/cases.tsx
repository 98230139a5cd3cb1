import { FilterSelect } from './ui.js';
import { useState } from 'preact/hooks';
import { actionRunner, api, query, when } from './api';
import { eventsOf, useResource } from './live';
import { ErrorLine, formValues, Status, Table } from './ui';

const STATUSES = ['open', 'investigating', 'awaitingParty', 'resolved', 'closed'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];

type Case = {
  caseId: string;
  title: string;
  status: string;
  priority: string;
  assignee: string | null;
  updatedAt: string;
};

/** The account's cases with status, priority and text filters, and a form to open one. */
export default function CasesPage() {
  const [filters, setFilters] = useState({ status: '', priority: '', text: '' });
  const { data, error, setError, reload } = useResource<Case[]>(
    () => api('GET', `/v1/cases${query({ limit: 100, ...filters })}`).then((r) => r.cases),
    [filters.status, filters.priority, filters.text],
    eventsOf('case.*'),
  );
  const act = actionRunner(setError, reload);
  const create = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    act(async () => {
      const r = await api('POST', '/v1/cases', { title: v.title, priority: v.priority, description: v.description });
      form.reset();
      location.hash = `#/cases/${r.case.caseId}`;
    });
  };
  const pick = (key: keyof typeof filters) => (e: Event) =>
    setFilters({ ...filters, [key]: (e.currentTarget as HTMLInputElement).value });
  return (
    <>
      <h1>Cases</h1>
      <div class="filters">
        <FilterSelect label="Status" value={filters.status} options={STATUSES} onChange={pick('status')} />
        <FilterSelect label="Priority" value={filters.priority} options={PRIORITIES} onChange={pick('priority')} />
        <label>
          Search <input type="search" value={filters.text} onChange={pick('text')} />
        </label>
      </div>
      <ErrorLine error={error} />
      <Table
        caption="Cases"
        rows={data ?? []}
        attrs={(c) => ({ 'data-case': c.caseId })}
        cols={[
          ['Case', (c) => <a href={`#/cases/${c.caseId}`}>{c.title}</a>],
          ['Status', (c) => <Status value={c.status} />],
          ['Priority', (c) => c.priority],
          ['Assignee', (c) => c.assignee ?? '—'],
          ['Updated', (c) => when(c.updatedAt)],
        ]}
        empty={data && 'No cases match.'}
      />
      <form class="card" onSubmit={create}>
        <h2>Open a case</h2>
        <label>
          Title
          <input name="title" required maxLength={200} />
        </label>
        <label>
          Description
          <textarea name="description" rows={2} />
        </label>
        <label>
          Priority
          <select name="priority">
            {PRIORITIES.map((p) => (
              <option selected={p === 'normal'}>{p}</option>
            ))}
          </select>
        </label>
        <button type="submit">Open case</button>
      </form>
    </>
  );
}
