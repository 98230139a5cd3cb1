import { actionRunner, api, money, when } from './api';
import { useResource } from './live';
import { BackLink, ErrorLine, Status, Table } from './ui';

/** Provider status in words: the payment intent's own state when a provider backs the receipt. */
export function providerStatus(r: any): string {
  if (!r.providerState) return r.provider;
  const failure = r.providerState.error ? ` (${r.providerState.error.message})` : '';
  return `${r.provider}: ${r.providerState.status ?? 'unknown'}${failure}`;
}

/** One mandate: its budget, what is left, and its receipts with their provider status. */
export default function MandatePage({ params: [mandateId] }: { params: string[] }) {
  const {
    data: m,
    error,
    setError,
    reload,
  } = useResource<any>(() => api('GET', `/v1/pay/mandates/${mandateId}`), [mandateId]);
  const act = actionRunner(setError, reload);
  if (!m)
    return (
      <>
        <BackLink href="#/pay" label="Pay" />
        {error ? <ErrorLine error={error} /> : <p>Loading…</p>}
      </>
    );
  const revoke = () =>
    act(async () => {
      if (confirm('Revoke this mandate? It settles nothing afterwards.'))
        await api('POST', `/v1/pay/mandates/${mandateId}/revoke`, {});
    });
  return (
    <>
      <BackLink href="#/pay" label="Pay" />
      <h1>
        Mandate <code>{m.mandateId}</code>
      </h1>
      <p>
        <Status value={m.status} /> · task <code>{m.taskId}</code> · budget {money(m.constraints.maxSpend)}
        {' · '}spent {money(m.spent)} · <strong data-testid="mandate-remaining">{money(m.remaining)} remaining</strong>
        {' · '}expires {when(m.expiresAt)}
      </p>
      {m.constraints.allowedVendors && <p>Vendors: {m.constraints.allowedVendors.join(', ')}</p>}
      <ErrorLine error={error} />
      {m.status === 'active' && (
        <p>
          <button type="button" onClick={revoke}>
            Revoke mandate
          </button>
        </p>
      )}
      <h2>Receipts</h2>
      <Table
        caption="Receipts settled under this mandate"
        rows={m.settlements}
        attrs={(r: any) => ({ 'data-receipt': r.receiptId })}
        cols={[
          [
            'Receipt',
            (r: any) => (
              <a href={`#/pay/receipts/${r.receiptId}`}>
                <code>{r.receiptId}</code>
              </a>
            ),
          ],
          ['Vendor', (r: any) => r.vendorId],
          ['Amount', (r: any) => money(r.amount)],
          ['Status', (r: any) => <Status value={r.status} />],
          ['Provider', (r: any) => providerStatus(r)],
          ['Settled', (r: any) => when(r.settledAt)],
        ]}
        empty="Nothing settled under this mandate yet."
      />
    </>
  );
}
