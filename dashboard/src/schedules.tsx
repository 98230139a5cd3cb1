import { actionRunner, api, when, ZONE } from './api';
import { eventsOf, useResource } from './live';
import { ErrorLine, formValues, PauseResume, Status, Table } from './ui';

export type Schedule = {
  scheduleId: string;
  name: string;
  cron: string;
  timezone: string;
  status: string;
  nextFireAt: string | null;
  lastFiredAt: string | null;
  target: { templateId?: string; request?: { request: string } };
};

/** The actions every schedule row and page shares: pause or resume, and fire now. */
export function scheduleActions(act: ReturnType<typeof actionRunner>) {
  const post = (s: Schedule, what: string) => act(() => api('POST', `/v1/schedules/${s.scheduleId}/${what}`, {}));
  return (s: Schedule) => (
    <>
      <PauseResume
        active={s.status === 'active'}
        name={s.name}
        pause={() => post(s, 'pause')}
        resume={() => post(s, 'resume')}
      />{' '}
      <button type="button" onClick={() => post(s, 'trigger')} aria-label={`Run now: ${s.name}`}>
        Run now
      </button>
    </>
  );
}

/** Schedules with their next fire time (in the member's zone; the cron's own zone beside it). */
export default function SchedulesPage() {
  const { data, error, setError, reload } = useResource<Schedule[]>(
    () => api('GET', '/v1/schedules?limit=100').then((r) => r.schedules),
    [],
    eventsOf('schedule.*'),
  );
  const act = actionRunner(setError, reload);
  const actions = scheduleActions(act);
  const create = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    act(async () => {
      await api('POST', '/v1/schedules', {
        name: v.name,
        cron: v.cron,
        timezone: v.timezone,
        target: { request: { request: v.request } },
      });
      form.reset();
    });
  };
  return (
    <>
      <h1>Schedules</h1>
      <p>
        <a href="#/signal-rules">Signal rules</a> start runs from events instead of the clock.
      </p>
      <ErrorLine error={error} />
      <Table
        caption="Schedules"
        rows={data ?? []}
        attrs={(s) => ({ 'data-schedule': s.name })}
        cols={[
          ['Name', (s) => <a href={`#/schedules/${s.scheduleId}`}>{s.name}</a>],
          [
            'When',
            (s) => (
              <>
                <code>{s.cron}</code> ({s.timezone})
              </>
            ),
          ],
          ['Status', (s) => <Status value={s.status} />],
          ['Next fire', (s) => when(s.nextFireAt)],
          ['Last fired', (s) => when(s.lastFiredAt)],
          ['', actions],
        ]}
        empty={data && 'No schedules.'}
      />
      <form class="card" onSubmit={create}>
        <h2>New schedule</h2>
        <label>
          Name
          <input name="name" required maxLength={100} />
        </label>
        <label>
          Cron expression (minute hour day month weekday; seconds optional)
          <input name="cron" required placeholder="0 9 * * 1-5" />
        </label>
        <label>
          Time zone (IANA)
          <input name="timezone" required defaultValue={ZONE} />
        </label>
        <label>
          Request the run carries out
          <textarea name="request" required rows={2} />
        </label>
        <button type="submit">Create schedule</button>
      </form>
    </>
  );
}
