import { useEffect, useState } from 'preact/hooks';
import { actionRunner, api, when } from './api';
import { ErrorLine, PauseResume, Table } from './ui';

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
      <ErrorLine error={error} />
      {secret && (
        <p class="card">
          Signing secret, shown once: <code class="secret">{secret}</code>{' '}
          <button type="button" onClick={() => setSecret('')}>
            Done
          </button>
        </p>
      )}
      <h2>Subscriptions</h2>
      <Table
        caption="Webhook subscriptions"
        rows={subs}
        cols={[
          ['Endpoint', (s) => <code>{s.endpoint}</code>],
          ['Events', (s) => s.events.join(', ')],
          ['Mode', (s) => s.mode],
          ['Status', (s) => s.status],
          [
            '',
            (s) => (
              <PauseResume
                active={s.status === 'active'}
                pause={() => setStatus(s, 'paused')}
                resume={() => setStatus(s, 'active')}
              />
            ),
          ],
        ]}
      />
      <form class="card" onSubmit={create}>
        <h2>New subscription</h2>
        <label>
          Endpoint (HTTPS URL)
          <input name="endpoint" type="url" required />
        </label>
        <label>
          Events (comma-separated; patterns such as <code>run.*</code>)
          <input name="events" required defaultValue="run.*" />
        </label>
        <button type="submit">Subscribe</button>
      </form>
      <h2>Failed deliveries</h2>
      <Table
        caption="Failed deliveries"
        rows={failed}
        cols={[
          ['Delivery', (d) => <code>{d.deliveryId}</code>],
          ['Event', (d) => <code>{d.eventId}</code>],
          ['Attempt', (d) => d.attempt],
          ['Response', (d) => d.responseStatus ?? d.error ?? '—'],
          ['Finished', (d) => when(d.finishedAt)],
          [
            '',
            (d) => (
              <button type="button" onClick={() => retry(d)}>
                Retry
              </button>
            ),
          ],
        ]}
      />
      {failed.length === 0 && <p>No failed deliveries.</p>}
    </>
  );
}
