import { actionRunner, api, when } from './api';
import { useResource, useRunStream } from './live';
import { BackLink, ErrorLine, formValues, Status, Table } from './ui';

const OUTCOMES = ['confirmedSuccess', 'providerUnavailable', 'failed'];

/**
 * One mission: what to do, its history, and its outcome. An open mission can be taken, handed back or canceled; one
 * in hand takes an outcome with the proof items it requires (each a note here; the inbox takes files). When the
 * mission belongs to a run, the run's SSE stream reloads the page as the run moves.
 */
export default function MissionPage({ params: [proxyId] }: { params: string[] }) {
  const {
    data: m,
    error,
    setError,
    reload,
  } = useResource<any>(() => api('GET', `/v1/proxy/missions/${proxyId}`).then((r) => r.mission), [proxyId]);
  // Only while the mission waits: a rested run's stream would end and reconnect for nothing.
  useRunStream(m && ['open', 'inProgress'].includes(m.status) ? m.runId : null, reload);
  const act = actionRunner(setError, reload);
  if (!m)
    return (
      <>
        <BackLink href="#/missions" label="Missions" />
        {error ? <ErrorLine error={error} /> : <p>Loading…</p>}
      </>
    );
  const move = (status: string) => act(() => api('POST', `/v1/proxy/missions/${proxyId}/update`, { status }));
  const submit = (e: Event) => {
    const v = formValues(e);
    const proof = Object.fromEntries((m.proofReq as string[]).map((item) => [item, v[`proof:${item}`] ?? '']));
    act(() =>
      api('POST', `/v1/proxy/missions/${proxyId}/outcome`, {
        status: v.status,
        ...(v.note ? { note: v.note } : {}),
        ...(m.proofReq.length ? { proof } : {}),
      }),
    );
  };
  const canAnswer = m.status === 'open' || m.status === 'inProgress';
  return (
    <>
      <BackLink href="#/missions" label="Missions" />
      <h1>{m.task}</h1>
      <p>
        <Status value={m.status} id="mission-status" /> · {m.kind} · {m.reason} · expires {when(m.expiresAt)}
        {m.runId && (
          <>
            {' '}
            · run <a href={`#/runs/${m.runId}`}>{m.runId}</a>
          </>
        )}
      </p>
      <ErrorLine error={error} />
      {canAnswer && (
        <p>
          {m.status === 'open' && (
            <button type="button" onClick={() => move('inProgress')}>
              Take it
            </button>
          )}
          {m.status === 'inProgress' && (
            <button type="button" onClick={() => move('open')}>
              Hand it back
            </button>
          )}{' '}
          <button type="button" onClick={() => move('canceled')}>
            Cancel mission
          </button>
        </p>
      )}
      <h2>Context</h2>
      <pre tabIndex={0} aria-label="Mission context">
        {JSON.stringify(m.context, null, 2)}
      </pre>
      {canAnswer && (
        <form class="card" onSubmit={submit}>
          <h2>Report the outcome</h2>
          <label>
            Outcome
            <select name="status">
              {OUTCOMES.map((o) => (
                <option>{o}</option>
              ))}
            </select>
          </label>
          <label>
            Note
            <textarea name="note" rows={2} />
          </label>
          {(m.proofReq as string[]).map((item) => (
            <label>
              Proof: {item} (required)
              <input name={`proof:${item}`} required />
            </label>
          ))}
          <button type="submit">Submit outcome</button>
        </form>
      )}
      {m.outcome && (
        <section class="card" aria-labelledby="outcome-title">
          <h2 id="outcome-title">Outcome: {m.outcome.status}</h2>
          <p>
            {m.outcome.note ?? ''} · by {m.outcome.actor} · {when(m.outcome.submittedAt)}
          </p>
          <Table
            caption="Proof artefacts with their hashes"
            rows={m.proofArtefacts}
            cols={[
              ['Item', (a: any) => a.item],
              ['Required', (a: any) => (a.required ? 'yes' : 'no')],
              ['SHA-256', (a: any) => <code class="hash">{a.sha256}</code>],
            ]}
          />
        </section>
      )}
      <h2>History</h2>
      <ol class="timeline">
        {m.history.map((h: any) => (
          <li>
            <span class="muted">{when(h.at)}</span> {h.from ?? '—'} → {h.to} ({h.actor}){h.note ? `: ${h.note}` : ''}
          </li>
        ))}
      </ol>
    </>
  );
}
