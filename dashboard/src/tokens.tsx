import { useEffect, useState } from 'preact/hooks';
import { SCOPES as ALL_SCOPES } from '../../shared/scopes.js';
import { actionRunner, api, asyncHandler, when } from './api';
import { ErrorLine, Table } from './ui';

/** What a new token may hold: the service's own list, less `admin` (minted only by the operator CLI). */
const SCOPES = ALL_SCOPES.filter((s) => s !== 'admin');

type Token = {
  tokenId: string;
  name: string;
  prefix: string;
  scopes: string[];
  status: string;
  createdAt: string;
  lastUsedAt: string | null;
};

/** A secret is shown once, right after it was made, with a copy button. */
function Secret({ secret, onDone }: { secret: { name: string; value: string }; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="card" aria-live="polite">
      <h2>Token "{secret.name}": copy it now, it is not shown again</h2>
      <code class="secret" data-testid="token-secret">
        {secret.value}
      </code>{' '}
      <button
        type="button"
        onClick={asyncHandler(() => navigator.clipboard.writeText(secret.value).then(() => setCopied(true)))}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>{' '}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

export default function TokensPage() {
  const [tokens, setTokens] = useState<Token[]>([]);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const [error, setError] = useState('');
  const load = () =>
    api('GET', '/v1/tokens')
      .then((r) => setTokens(r.tokens))
      .catch((e) => setError(e.message));
  useEffect(() => void load(), []);
  const act = actionRunner(setError, load);
  const create = (e: Event) =>
    act(async () => {
      e.preventDefault();
      const formEl = e.currentTarget as HTMLFormElement;
      const form = new FormData(formEl);
      const scopes = form.getAll('scope').map(String);
      const name = String(form.get('name'));
      const r = await api('POST', '/v1/tokens', { name, ...(scopes.length ? { scopes } : {}) });
      setSecret({ name, value: r.token });
      formEl.reset();
    });
  const rotate = (t: Token) =>
    act(async () => {
      const r = await api('POST', `/v1/tokens/${t.tokenId}/rotate`);
      setSecret({ name: t.name, value: r.token });
    });
  const revoke = (t: Token) =>
    act(async () => {
      if (confirm(`Revoke "${t.name}"? It stops working at once.`)) await api('POST', `/v1/tokens/${t.tokenId}/revoke`);
    });
  return (
    <>
      <h1>API tokens</h1>
      {secret && <Secret secret={secret} onDone={() => setSecret(null)} />}
      <ErrorLine error={error} />
      <Table
        caption="API tokens"
        rows={tokens}
        attrs={(t) => ({ 'data-token': t.name })}
        cols={[
          ['Name', (t) => t.name],
          ['Prefix', (t) => <code>{t.prefix}…</code>],
          ['Scopes', (t) => (t.scopes.length === SCOPES.length ? 'all' : t.scopes.join(', '))],
          ['Status', (t) => t.status],
          ['Created', (t) => when(t.createdAt)],
          ['Last used', (t) => when(t.lastUsedAt)],
          [
            '',
            (t) =>
              t.status === 'active' && (
                <>
                  <button type="button" onClick={() => rotate(t)}>
                    Rotate
                  </button>{' '}
                  <button type="button" onClick={() => revoke(t)}>
                    Revoke
                  </button>
                </>
              ),
          ],
        ]}
      />
      <form onSubmit={create} class="card">
        <h2>New token</h2>
        <label>
          Name
          <input name="name" required maxLength={100} />
        </label>
        <fieldset>
          <legend>Scopes (none ticked: all)</legend>
          {SCOPES.map((s) => (
            <label class="check">
              <input type="checkbox" name="scope" value={s} /> {s}
            </label>
          ))}
        </fieldset>
        <button type="submit">Create token</button>
      </form>
    </>
  );
}
