import { actionRunner, api, when } from './api';
import { eventsOf, useResource } from './live';
import { ErrorLine, formValues, PauseResume, Status, Table } from './ui';

type Rule = {
  ruleId: string;
  name: string;
  signalType: string;
  condition: unknown;
  status: string;
  target: { templateId?: string; request?: { request: string } };
  maxRunsPerHour: number | null;
  updatedAt: string;
};

/** Signal rules: which signals start which runs, with pause/resume and a form for a new one. */
export default function SignalRulesPage() {
  const { data, error, setError, reload } = useResource<Rule[]>(
    () => api('GET', '/v1/signals/rules?limit=100').then((r) => r.rules),
    [],
    eventsOf('signal.*'),
  );
  const act = actionRunner(setError, reload);
  const setStatus = (r: Rule, status: string) =>
    act(() => api('POST', `/v1/signals/rules/${r.ruleId}/update`, { status }));
  const remove = (r: Rule) =>
    act(async () => {
      if (confirm(`Delete rule "${r.name}"?`)) await api('DELETE', `/v1/signals/rules/${r.ruleId}`);
    });
  const create = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    act(async () => {
      let condition: unknown = null;
      if (v.condition) {
        try {
          condition = JSON.parse(v.condition);
        } catch {
          throw new Error('The condition must be JSON Logic (a JSON object)');
        }
      }
      await api('POST', '/v1/signals/rules', {
        name: v.name,
        signalType: v.signalType,
        condition,
        target: { request: { request: v.request } },
      });
      form.reset();
    });
  };
  return (
    <>
      <h1>Signal rules</h1>
      <ErrorLine error={error} />
      <Table
        caption="Signal rules"
        rows={data ?? []}
        attrs={(r) => ({ 'data-rule': r.name })}
        cols={[
          ['Name', (r) => r.name],
          ['Signal type', (r) => <code>{r.signalType}</code>],
          ['Condition', (r) => (r.condition ? <code>{JSON.stringify(r.condition)}</code> : 'always')],
          ['Starts', (r) => r.target.request?.request ?? `template ${r.target.templateId}`],
          ['Status', (r) => <Status value={r.status} />],
          ['Updated', (r) => when(r.updatedAt)],
          [
            '',
            (r) => (
              <>
                <PauseResume
                  active={r.status === 'active'}
                  name={r.name}
                  pause={() => setStatus(r, 'paused')}
                  resume={() => setStatus(r, 'active')}
                />{' '}
                <button type="button" onClick={() => remove(r)} aria-label={`Delete ${r.name}`}>
                  Delete
                </button>
              </>
            ),
          ],
        ]}
        empty={data && 'No signal rules.'}
      />
      <form class="card" onSubmit={create}>
        <h2>New signal rule</h2>
        <label>
          Name
          <input name="name" required maxLength={100} />
        </label>
        <label>
          Signal type
          <input name="signalType" required placeholder="price.drop" />
        </label>
        <label>
          Condition (JSON Logic; empty: every signal of the type)
          <textarea name="condition" rows={2} placeholder='{"<": [{"var": "value.price"}, 200]}' />
        </label>
        <label>
          Request the run carries out
          <textarea name="request" required rows={2} />
        </label>
        <button type="submit">Create rule</button>
      </form>
    </>
  );
}
