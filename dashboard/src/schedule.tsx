import { actionRunner, api, when } from './api';
import { useResource } from './live';
import { scheduleActions, type Schedule } from './schedules';
import { BackLink, ErrorLine, Status, Table } from './ui';

/** One schedule: its next five fire times, its last ten firings and the runs they started. */
export default function SchedulePage({ params: [scheduleId] }: { params: string[] }) {
  const { data, error, setError, reload } = useResource<any>(
    () => api('GET', `/v1/schedules/${scheduleId}`),
    [scheduleId],
  );
  const act = actionRunner(setError, reload);
  const actions = scheduleActions(act);
  if (!data)
    return (
      <>
        <BackLink href="#/schedules" label="Schedules" />
        {error ? <ErrorLine error={error} /> : <p>Loading…</p>}
      </>
    );
  const s: Schedule & Record<string, any> = data.schedule;
  const remove = () =>
    act(async () => {
      if (!confirm(`Delete schedule "${s.name}"? The runs it started stay.`)) return;
      await api('DELETE', `/v1/schedules/${scheduleId}`);
      location.hash = '#/schedules';
    });
  return (
    <>
      <BackLink href="#/schedules" label="Schedules" />
      <h1>{s.name}</h1>
      <p>
        <Status value={s.status} id="schedule-status" /> · <code>{s.cron}</code> in {s.timezone} · overlap {s.overlap} ·
        catch-up {s.catchUp}
      </p>
      <p>Runs: {s.target.request?.request ?? `template ${s.target.templateId}`}</p>
      <p>
        {actions(s)}{' '}
        <button type="button" onClick={remove}>
          Delete
        </button>
      </p>
      <ErrorLine error={error} />
      <h2>Next fire times</h2>
      <ol data-testid="next-fires">
        {(data.nextFireTimes as string[]).map((t) => (
          <li>{when(t)}</li>
        ))}
      </ol>
      {data.nextFireTimes.length === 0 && <p>None while paused.</p>}
      <h2>Recent firings</h2>
      <Table
        caption="The last ten firings"
        rows={data.recentFirings}
        cols={[
          ['Scheduled for', (f: any) => when(f.scheduledFor)],
          ['Trigger', (f: any) => f.trigger],
          ['Outcome', (f: any) => <Status value={f.outcome} />],
          ['Run', (f: any) => (f.runId ? <a href={`#/runs/${f.runId}`}>{f.runId}</a> : (f.reason ?? '—'))],
        ]}
        empty="Not fired yet."
      />
    </>
  );
}
