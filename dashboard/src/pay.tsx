import { useState } from 'preact/hooks';
import { api, money, query, when } from './api';
import { eventsOf, useResource } from './live';
import { ErrorLine, Status, Table } from './ui';

type Mandate = {
  mandateId: string;
  taskId: string;
  status: string;
  constraints: { maxSpend: { amount: number; currency: string } };
  remaining: { amount: number; currency: string };
  spent: { amount: number; currency: string };
  expiresAt: string | null;
};

/** Mandates with what each still allows; a mandate's page lists its receipts, a receipt's page refunds it. */
export default function PayPage() {
  const [status, setStatus] = useState('');
  const { data, error } = useResource<Mandate[]>(
    () => api('GET', `/v1/pay/mandates${query({ limit: 100, status })}`).then((r) => r.mandates),
    [status],
    eventsOf('pay.*'),
  );
  return (
    <>
      <h1>Pay</h1>
      <div class="filters">
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">any</option>
            <option>active</option>
            <option>revoked</option>
            <option>expired</option>
          </select>
        </label>
      </div>
      <ErrorLine error={error} />
      <Table
        caption="Mandates with their remaining budget"
        rows={data ?? []}
        attrs={(m) => ({ 'data-mandate': m.mandateId })}
        cols={[
          [
            'Mandate',
            (m) => (
              <a href={`#/pay/mandates/${m.mandateId}`}>
                <code>{m.mandateId}</code>
              </a>
            ),
          ],
          ['Status', (m) => <Status value={m.status} />],
          ['Budget', (m) => money(m.constraints.maxSpend)],
          ['Spent', (m) => money(m.spent)],
          [
            'Remaining',
            (m) => (
              <>
                {money(m.remaining)}{' '}
                <meter
                  min={0}
                  max={m.constraints.maxSpend.amount}
                  value={m.remaining.amount}
                  aria-label={`Remaining of ${money(m.constraints.maxSpend)}`}
                />
              </>
            ),
          ],
          ['Expires', (m) => when(m.expiresAt)],
        ]}
        empty={data && 'No mandates: pay settles nothing without one (POST /v1/pay/mandates).'}
      />
    </>
  );
}
