import { useState } from 'preact/hooks';
import { api, asyncHandler } from './api';
import { ErrorLine, formValues } from './ui';

/**
 * Proof packs have no list in the API: a pack is opened by its id (a run that paid names it `pp_…` after the run) or
 * sealed now for a run that rests. A run's page seals one too.
 */
export default function ProofPacksPage() {
  const [error, setError] = useState('');
  const open = (e: Event) => {
    const v = formValues(e);
    location.hash = `#/proof-packs/${v.packId!.trim()}`;
  };
  const seal = asyncHandler(async (e: Event) => {
    const v = formValues(e);
    setError('');
    try {
      const r = await api('POST', '/v1/audit/proofPacks', { runId: v.runId!.trim() });
      location.hash = `#/proof-packs/${r.pack.packId}`;
    } catch (err) {
      setError((err as Error).message);
    }
  });
  return (
    <>
      <h1>Proof packs</h1>
      <p>
        A proof pack is a run's evidence, decisions, receipts and audit entries, each hashed and signed by the service.
        Its page checks it in this browser against the service's published keys.
      </p>
      <ErrorLine error={error} />
      <form class="card" onSubmit={open}>
        <h2>Open a pack</h2>
        <label>
          Pack id
          <input name="packId" required pattern="[\w\-]+" placeholder="pp_…" />
        </label>
        <button type="submit">Open pack</button>
      </form>
      <form class="card" onSubmit={seal}>
        <h2>Seal a pack of a run</h2>
        <label>
          Run id
          <input name="runId" required pattern="[\w\-]+" placeholder="run_…" />
        </label>
        <button type="submit">Seal pack</button>
      </form>
    </>
  );
}
