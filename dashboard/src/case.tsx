import { actionRunner, api, when } from './api';
import { useResource } from './live';
import { BackLink, ErrorLine, formValues, Status, Table } from './ui';
import { CaseParts } from './case-parts';

export type Deadline = { deadlineId: string; title: string; dueAt: string; owner: string | null; status: string };
type Entry = { entryId: string; at: string; kind: string; actor: string; text: string };

/** An open deadline whose time has passed, whether or not the review has marked it missed yet. */
export const overdue = (d: Deadline, now = Date.now()) =>
  d.status === 'missed' || (d.status === 'open' && Date.parse(d.dueAt) < now);

/** One case: its deadlines (what is overdue marked in words, not only in colour), stakeholders, actions, timeline. */
export default function CasePage({ params: [caseId] }: { params: string[] }) {
  const { data, error, setError, reload } = useResource(async () => {
    const [c, t] = await Promise.all([
      api('GET', `/v1/cases/${caseId}`),
      api('GET', `/v1/cases/${caseId}/timeline?limit=200`),
    ]);
    return { c: c.case, timeline: t.entries as Entry[] };
  }, [caseId]);
  const act = actionRunner(setError, reload);
  if (!data)
    return (
      <>
        <BackLink href="#/cases" label="Cases" />
        {error ? <ErrorLine error={error} /> : <p>Loading…</p>}
      </>
    );
  const c = data.c;
  const deadlines = [...(c.deadlines as Deadline[])].sort((a, b) => Date.parse(a.dueAt) - Date.parse(b.dueAt));
  const late = deadlines.filter((d) => overdue(d));
  const addDeadline = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    act(async () => {
      await api('POST', `/v1/cases/${caseId}/deadlines`, {
        title: v.title,
        dueAt: new Date(v.dueAt!).toISOString(),
        ...(v.owner ? { owner: v.owner } : {}),
      });
      form.reset();
    });
  };
  const settle = (d: Deadline, status: string) =>
    act(() => api('POST', `/v1/cases/${caseId}/deadlines/${d.deadlineId}/update`, { status }));
  const move = (status: string) => act(() => api('POST', `/v1/cases/${caseId}/update`, { status }));
  return (
    <>
      <BackLink href="#/cases" label="Cases" />
      <h1>{c.title}</h1>
      <p>
        <Status value={c.status} /> · priority {c.priority} · assignee {c.assignee ?? 'nobody'} · opened{' '}
        {when(c.createdAt)}
        {c.runId && (
          <>
            {' '}
            · run <a href={`#/runs/${c.runId}`}>{c.runId}</a>
          </>
        )}
      </p>
      {c.description && <p>{c.description}</p>}
      {c.allowedTransitions.length > 0 && (
        <p>
          {c.allowedTransitions.map((s: string) => (
            <>
              <button type="button" onClick={() => move(s)}>
                Mark {s}
              </button>{' '}
            </>
          ))}
        </p>
      )}
      <ErrorLine error={error} />
      <h2>Deadlines</h2>
      <p data-testid="overdue-count" class={late.length ? 'error' : ''}>
        {late.length === 0 ? 'Nothing overdue.' : `${late.length} overdue.`}
      </p>
      <Table
        caption="Deadlines, soonest first"
        rows={deadlines}
        attrs={(d) => ({ 'data-deadline': d.title, class: overdue(d) ? 'overdue' : undefined })}
        cols={[
          ['Deadline', (d) => d.title],
          ['Due', (d) => when(d.dueAt)],
          [
            'Status',
            (d) => (
              <>
                <Status value={d.status} />
                {overdue(d) && <strong class="badge">Overdue</strong>}
              </>
            ),
          ],
          ['Owner', (d) => d.owner ?? '—'],
          [
            '',
            (d) =>
              d.status === 'open' || d.status === 'missed' ? (
                <>
                  <button type="button" onClick={() => settle(d, 'met')}>
                    Met
                  </button>{' '}
                  <button type="button" onClick={() => settle(d, 'waived')}>
                    Waive
                  </button>
                </>
              ) : null,
          ],
        ]}
        empty="No deadlines."
      />
      <form class="card" onSubmit={addDeadline}>
        <h3>Add a deadline</h3>
        <label>
          Title
          <input name="title" required maxLength={200} />
        </label>
        <label>
          Due (your time)
          <input name="dueAt" type="datetime-local" required />
        </label>
        <label>
          Owner
          <input name="owner" />
        </label>
        <button type="submit">Add deadline</button>
      </form>
      <CaseParts c={c} act={act} />
      <h2>Timeline</h2>
      <ol class="timeline">
        {data.timeline.map((t) => (
          <li>
            <span class="muted">{when(t.at)}</span> <code>{t.kind}</code> {t.text}{' '}
            <span class="muted">({t.actor})</span>
          </li>
        ))}
      </ol>
    </>
  );
}
