import { actionRunner, api, money, when } from './api';
import { useResource } from './live';
import { BackLink, ErrorLine, formValues, Status, Table } from './ui';
import { providerStatus } from './mandate';

const REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'];

/** One receipt: amount, provider status, refunds so far, and a refund (in part or in full) while it is settled. */
export default function ReceiptPage({ params: [receiptId] }: { params: string[] }) {
  const {
    data: r,
    error,
    setError,
    reload,
  } = useResource<any>(() => api('GET', `/v1/pay/receipts/${receiptId}`).then((x) => x.receipt), [receiptId]);
  const act = actionRunner(setError, reload);
  if (!r)
    return (
      <>
        <BackLink href="#/pay" label="Pay" />
        {error ? <ErrorLine error={error} /> : <p>Loading…</p>}
      </>
    );
  const left = Number((r.amount.amount - r.refunded.amount).toFixed(6));
  const refund = (e: Event) => {
    const v = formValues(e);
    act(() =>
      api('POST', '/v1/pay/refunds', {
        receiptId,
        ...(v.amount ? { amount: Number(v.amount) } : {}),
        reason: v.reason,
      }),
    );
  };
  return (
    <>
      <BackLink href={`#/pay/mandates/${r.mandateId}`} label="Mandate" />
      <h1>
        Receipt <code>{r.receiptId}</code>
      </h1>
      <p>
        <Status value={r.status} /> · {money(r.amount)} to {r.vendorId} · provider {providerStatus(r)} · settled{' '}
        {when(r.settledAt)}
        {r.runId && (
          <>
            {' '}
            · run <a href={`#/runs/${r.runId}`}>{r.runId}</a>
          </>
        )}
      </p>
      <p data-testid="receipt-refunded">Refunded: {money(r.refunded)}</p>
      <ErrorLine error={error} />
      <h2>Refunds</h2>
      <Table
        caption="Refunds of this receipt"
        rows={r.refunds}
        attrs={(f: any) => ({ 'data-refund': f.refundId })}
        cols={[
          ['Refund', (f: any) => <code>{f.refundId}</code>],
          ['Amount', (f: any) => money(f.amount)],
          ['Status', (f: any) => <Status value={f.status} />],
          ['Reason', (f: any) => f.reason ?? '—'],
          ['At', (f: any) => when(f.createdAt)],
        ]}
        empty="No refunds."
      />
      {r.status === 'settled' && left > 0 && (
        <form class="card" onSubmit={refund}>
          <h2>Refund</h2>
          <label>
            Amount in {r.amount.currency} (empty: all that is left,{' '}
            {money({ amount: left, currency: r.amount.currency })})
            <input name="amount" type="number" min="0.01" step="0.01" max={left} inputMode="decimal" />
          </label>
          <label>
            Reason
            <select name="reason">
              {REASONS.map((x) => (
                <option>{x}</option>
              ))}
            </select>
          </label>
          <button type="submit">Refund</button>
        </form>
      )}
    </>
  );
}
