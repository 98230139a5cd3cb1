import { useState } from 'preact/hooks';
import { api, asyncHandler, when } from './api';
import { useResource } from './live';
import { verifyPack, type PackCheck } from './pack-verify';
import { BackLink, ErrorLine, Table } from './ui';

const SIGNATURE_WORDS: Record<PackCheck['signature'], string> = {
  valid: 'the signature verifies with the published key',
  invalid: 'the signature does NOT verify',
  unknownKey: 'the key that signed it is not one the service publishes',
  unsupported: 'this browser cannot check Ed25519 signatures (the hashes were checked; use the service’s check below)',
};

/** One sealed pack: its sections, a download of the document as sealed, and its check in this browser. */
export default function ProofPackPage({ params: [packId] }: { params: string[] }) {
  const { data: pack, error } = useResource<any>(
    () => api('GET', `/v1/audit/proofPacks/${packId}`).then((r) => r.pack),
    [packId],
  );
  const [check, setCheck] = useState<PackCheck | null>(null);
  const [server, setServer] = useState<any>(null);
  const [checkError, setCheckError] = useState('');
  if (!pack)
    return (
      <>
        <BackLink href="#/proof-packs" label="Proof packs" />
        {error ? <ErrorLine error={error} /> : <p>Loading…</p>}
      </>
    );
  const { shareUrl: _share, ...sealed } = pack;
  const verify = asyncHandler(async () => {
    setCheckError('');
    try {
      const jwks = await fetch('/.well-known/jwks.json').then((r) => r.json());
      setCheck(await verifyPack(sealed, jwks));
    } catch (e) {
      setCheckError(
        globalThis.crypto?.subtle
          ? (e as Error).message
          : 'WebCrypto is not available here (the page is not in a secure context): use the service’s check.',
      );
    }
  });
  const verifyOnServer = asyncHandler(async () => {
    setServer(await api('POST', '/v1/audit/proofPacks/verify', { pack: sealed }));
  });
  const download = () => {
    const url = URL.createObjectURL(new Blob([JSON.stringify(sealed, null, 2)], { type: 'application/json' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `${pack.packId}.json` });
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <>
      <BackLink href="#/proof-packs" label="Proof packs" />
      <h1>
        Proof pack <code>{pack.packId}</code>
      </h1>
      <p>
        Run <a href={`#/runs/${pack.runId}`}>{pack.runId}</a> · sealed {when(pack.sealedAt)} · key{' '}
        <code class="hash">{pack.seal.kid}</code>
      </p>
      <p>
        <button type="button" onClick={verify}>
          Verify in this browser
        </button>{' '}
        <button type="button" onClick={download}>
          Download
        </button>{' '}
        <button type="button" onClick={verifyOnServer}>
          Ask the service to verify
        </button>
      </p>
      <div class="verdict" aria-live="polite" data-testid="pack-verdict">
        {check && (
          <p class={check.valid ? 'ok' : 'error'}>
            <strong>{check.valid ? 'Verified in this browser' : 'Not verified'}</strong>: root hash{' '}
            {check.rootHash.ok ? 'matches' : 'differs'}, {check.sections.filter((s) => s.ok).length} of{' '}
            {check.sections.length} sections intact, {SIGNATURE_WORDS[check.signature]}.
          </p>
        )}
        {checkError && <p class="error">{checkError}</p>}
        {server && (
          <p class={server.valid ? 'ok' : 'error'}>
            The service says: {server.valid ? 'valid' : `invalid (${server.invalidSections.join(', ')})`}.
          </p>
        )}
      </div>
      <h2>Sections</h2>
      <Table
        caption="Sections of the pack with their hashes"
        rows={pack.sections.map((s: any, i: number) => ({ s, hash: pack.seal.sectionHashes[i]?.sha256 }))}
        attrs={(r: any) => ({ 'data-section': r.s.kind })}
        cols={[
          ['Section', (r: any) => r.s.kind],
          ['Summary', (r: any) => summary(r.s)],
          ['SHA-256', (r: any) => <code class="hash">{r.hash}</code>],
          [
            'In this browser',
            (r: any) => {
              const c = check?.sections.find((x) => x.kind === r.s.kind);
              return c ? (c.ok ? 'intact' : 'CHANGED') : '—';
            },
          ],
        ]}
      />
      {pack.sections.map((s: any) => (
        <details>
          <summary>{s.kind}</summary>
          <pre tabIndex={0} aria-label={`Section ${s.kind}`}>
            {JSON.stringify(s, null, 2).slice(0, 20_000)}
          </pre>
        </details>
      ))}
    </>
  );
}

function summary(s: any): string {
  if (s.kind === 'evidenceMap') return `${s.itemCount} item(s)${s.allSourceBound ? ', all source-bound' : ''}`;
  if (s.kind === 'decisionLog') return `${s.selectedPath.join(' → ')} · ${s.status}`;
  if (typeof s.count === 'number') return `${s.count} entr${s.count === 1 ? 'y' : 'ies'}`;
  return '';
}
