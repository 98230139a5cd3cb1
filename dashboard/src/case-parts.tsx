import { api, when } from './api';
import { formValues, Status, Table } from './ui';

const ROLES = ['claimant', 'respondent', 'vendor', 'customer', 'counterparty', 'witness', 'advisor', 'regulator'];
type Act = (fn: () => Promise<unknown>) => void;

/** A case's stakeholders and action items, each with its form (the case page's lower half). */
export function CaseParts({ c, act }: { c: any; act: Act }) {
  const run = act;
  const addStakeholder = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    run(async () => {
      await api('POST', `/v1/cases/${c.caseId}/stakeholders`, {
        name: v.name,
        role: v.role,
        contact: v.email ? { email: v.email } : {},
        ...(v.organisation ? { organisation: v.organisation } : {}),
      });
      form.reset();
    });
  };
  const addAction = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    run(async () => {
      await api('POST', `/v1/cases/${c.caseId}/actions`, {
        title: v.title,
        ...(v.owner ? { owner: v.owner } : {}),
        ...(v.dueAt ? { dueAt: new Date(v.dueAt).toISOString() } : {}),
      });
      form.reset();
    });
  };
  const moveAction = (a: any, status: string) =>
    run(() => api('POST', `/v1/cases/${c.caseId}/actions/${a.actionId}/update`, { status }));
  return (
    <>
      <h2>Stakeholders</h2>
      <Table
        caption="Stakeholders"
        rows={c.stakeholders}
        cols={[
          ['Name', (s: any) => s.name],
          ['Role', (s: any) => s.role],
          ['Contact', (s: any) => s.contact.email ?? s.contact.phone ?? '—'],
          ['Organisation', (s: any) => s.organisation ?? '—'],
        ]}
        empty="No stakeholders."
      />
      <form class="card" onSubmit={addStakeholder}>
        <h3>Add a stakeholder</h3>
        <label>
          Name
          <input name="name" required />
        </label>
        <label>
          Role
          <select name="role">
            {ROLES.map((r) => (
              <option>{r}</option>
            ))}
          </select>
        </label>
        <label>
          Email
          <input name="email" type="email" />
        </label>
        <label>
          Organisation
          <input name="organisation" />
        </label>
        <button type="submit">Add stakeholder</button>
      </form>
      <h2>Action items</h2>
      <Table
        caption="Open action items"
        rows={c.actions}
        cols={[
          ['Action', (a: any) => a.title],
          ['Status', (a: any) => <Status value={a.status} />],
          ['Owner', (a: any) => a.owner ?? '—'],
          ['Due', (a: any) => when(a.dueAt)],
          [
            '',
            (a: any) =>
              a.allowedTransitions.map((s: string) => (
                <>
                  <button type="button" onClick={() => moveAction(a, s)}>
                    {s}
                  </button>{' '}
                </>
              )),
          ],
        ]}
        empty="No open action items."
      />
      <form class="card" onSubmit={addAction}>
        <h3>Add an action item</h3>
        <label>
          Title
          <input name="title" required />
        </label>
        <label>
          Owner
          <input name="owner" />
        </label>
        <label>
          Due (your time)
          <input name="dueAt" type="datetime-local" />
        </label>
        <button type="submit">Add action</button>
      </form>
    </>
  );
}
