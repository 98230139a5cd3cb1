import { useState } from 'preact/hooks';
import { actionRunner, api, when } from './api';
import { useResource } from './live';
import { ErrorLine, formValues, Status, Table } from './ui';

const KINDS = [
  'apiKey',
  'bearer',
  'basic',
  'password',
  'oauth2ClientCredentials',
  'oauth2RefreshToken',
  'totpSeed',
  'privateKey',
];

type Credential = {
  name: string;
  kind: string;
  status: string;
  ref: string;
  currentVersion: number;
  versions: Array<{ version: number; createdAt: string; expiresAt: string | null }>;
  lastUsedAt: string | null;
};

/** A secret as typed: a JSON object for the kinds made of parts (basic, OAuth), otherwise the text itself. */
function secretOf(text: string): unknown {
  if (!text.trim().startsWith('{')) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('A value that starts with { must be a JSON object');
  }
}

/**
 * The account's vault: names, kinds, versions and last use, never values. A value goes in write-only (a password
 * field, cleared after sending) when a credential is stored or rotated.
 */
export default function CredentialsPage() {
  const { data, error, setError, reload } = useResource<Credential[]>(
    () => api('GET', '/v1/bridge/credentials?limit=100').then((r) => r.credentials),
    [],
  );
  const [rotating, setRotating] = useState<string | null>(null);
  const act = actionRunner(setError, reload);
  const create = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    act(async () => {
      await api('POST', '/v1/bridge/credentials', { name: v.name, kind: v.kind, value: secretOf(v.value ?? '') });
      form.reset();
    });
  };
  const rotate = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    act(async () => {
      await api('POST', `/v1/bridge/credentials/${encodeURIComponent(rotating!)}/rotate`, {
        value: secretOf(v.value ?? ''),
      });
      form.reset();
      setRotating(null);
    });
  };
  const toggle = (c: Credential) =>
    act(() =>
      api(
        'POST',
        `/v1/bridge/credentials/${encodeURIComponent(c.name)}/${c.status === 'active' ? 'disable' : 'enable'}`,
      ),
    );
  return (
    <>
      <h1>Credentials</h1>
      <p>
        Connectors refer to a credential as <code>cred:name</code>. Values are never shown.
      </p>
      <ErrorLine error={error} />
      <Table
        caption="Credentials in the account's vault"
        rows={data ?? []}
        attrs={(c) => ({ 'data-credential': c.name })}
        cols={[
          ['Name', (c) => <code>{c.name}</code>],
          ['Kind', (c) => c.kind],
          ['Status', (c) => <Status value={c.status} />],
          ['Version', (c) => `${c.currentVersion} of ${c.versions.length}`],
          ['Last used', (c) => when(c.lastUsedAt)],
          [
            '',
            (c) => (
              <>
                <button type="button" onClick={() => setRotating(c.name)} aria-label={`Rotate ${c.name}`}>
                  Rotate
                </button>{' '}
                <button
                  type="button"
                  onClick={() => toggle(c)}
                  aria-label={`${c.status === 'active' ? 'Disable' : 'Enable'} ${c.name}`}
                >
                  {c.status === 'active' ? 'Disable' : 'Enable'}
                </button>
              </>
            ),
          ],
        ]}
        empty={data && 'No credentials.'}
      />
      {rotating && (
        <form class="card" onSubmit={rotate}>
          <h2>
            Rotate <code>{rotating}</code>
          </h2>
          <p>The new value becomes current; the previous one keeps working for a grace period.</p>
          <label>
            New value
            <input name="value" type="password" required autocomplete="off" />
          </label>
          <button type="submit">Rotate</button>{' '}
          <button type="button" onClick={() => setRotating(null)}>
            Cancel
          </button>
        </form>
      )}
      <form class="card" onSubmit={create}>
        <h2>Store a credential</h2>
        <label>
          Name
          <input name="name" required pattern="[\w.\-]+" />
        </label>
        <label>
          Kind
          <select name="kind">
            {KINDS.map((k) => (
              <option>{k}</option>
            ))}
          </select>
        </label>
        <label>
          Value (write-only; a JSON object for basic and OAuth kinds)
          <input name="value" type="password" required autocomplete="off" />
        </label>
        <button type="submit">Store credential</button>
      </form>
    </>
  );
}
