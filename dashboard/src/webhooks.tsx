import { useEffect, useState } from 'preact/hooks';
import { actionRunner, api, when } from './api';

type Subscription = {
  subscriptionId: string;
  endpoint: string;
  events: string[];
  status: string;
  mode: string;
  description: string | null;
};
type Delivery = {
  deliveryId: string;
  eventId: string;
  subscriptionId: string;
  attempt: number;
  status: string;
  responseStatus: number | null;
  error: string | null;
  finishedAt: string | null;
};

/** Webhook subscriptions (create, pause, resume), the failed deliveries and their retry. */
export default function WebhooksPage() {
  const [subs, setSubs] = useState<Subscription[]>([]);
  const [failed, setFailed] = useState<Delivery[]>([]);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const load = async () => {
    const [s, d] = await Promise.all([
      api('GET', '/v1/event-subscriptions?limit=100'),
      api('GET', '/v1/event-deliveries?status=failed&limit=100'),
    ]);
    setSubs(s.subscriptions);
    setFailed(d.deliveries);
  };
  useEffect(() => void load().catch((e) => setError(e.message)), []);
  const act = actionRunner(setError, load);
  const create = (e: Event) =>
    act(async () => {
      e.preventDefault();
      const formEl = e.currentTarget as HTMLFormElement;
      const form = new FormData(formEl);
      const events = String(form.get('events'))
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const r = await api('POST', '/v1/event-subscriptions', {
        endpoint: String(form.get('endpoint')),
        events,
        mode: 'push',
      });
      setSecret(r.secret);
      formEl.reset();
    });
  const setStatus = (s: Subscription, status: string) =>
    act(() => api('POST', `/v1/event-subscriptions/${s.subscriptionId}/update`, { status }));
  const retry = (d: Delivery) => act(() => api('POST', `/v1/event-deliveries/${d.deliveryId}/retry`, {}));
  return (
    <>
      <h1>Webhooks</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {secret && (
        <p class="card">
          Signing secret, shown once: <code class="secret">{secret}</code>{' '}
          <button type="button" onClick={() => setSecret('')}>
            Done
          </button>
        </p>
      )}
      <h2>Subscriptions</h2>
      <table>
        <thead>
          <tr>
            <th>Endpoint</th>
            <th>Events</th>
            <th>Mode</th>
            <th>Status</th>
            <th>
              <span class="sr">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {subs.map((s) => (
            <tr>
              <td>
                <code>{s.endpoint}</code>
              </td>
              <td>{s.events.join(', ')}</td>
              <td>{s.mode}</td>
              <td>{s.status}</td>
              <td>
                {s.status === 'active' ? (
                  <button type="button" onClick={() => setStatus(s, 'paused')}>
                    Pause
                  </button>
                ) : (
                  <button type="button" onClick={() => setStatus(s, 'active')}>
                    Resume
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="card" onSubmit={create}>
        <h2>New subscription</h2>
        <label>
          Endpoint (HTTPS URL)
          <input name="endpoint" type="url" required />
        </label>
        <label>
          Events (comma-separated; patterns such as <code>run.*</code>)<input name="events" required value="run.*" />
        </label>
        <button type="submit">Subscribe</button>
      </form>
      <h2>Failed deliveries</h2>
      <table>
        <thead>
          <tr>
            <th>Delivery</th>
            <th>Event</th>
            <th>Attempt</th>
            <th>Response</th>
            <th>Finished</th>
            <th>
              <span class="sr">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {failed.map((d) => (
            <tr>
              <td>
                <code>{d.deliveryId}</code>
              </td>
              <td>
                <code>{d.eventId}</code>
              </td>
              <td>{d.attempt}</td>
              <td>{d.responseStatus ?? d.error ?? '—'}</td>
              <td>{when(d.finishedAt)}</td>
              <td>
                <button type="button" onClick={() => retry(d)}>
                  Retry
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {failed.length === 0 && <p>No failed deliveries.</p>}
    </>
  );
}
