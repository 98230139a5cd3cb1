import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, asyncHandler, setCsrf } from './api';
import { SignIn } from './sign-in';
import { TokensPage } from './tokens';
import { RunsPage } from './runs';
import { RunPage } from './run';
import { WebhooksPage } from './webhooks';
import { UsagePage } from './usage';
import './style.css';

export type Account = {
  accountId: string;
  email: string;
  name: string;
  plan: string;
  activated: boolean;
  usage: any;
  /** The signed-in member (its own email and role), beside the account it belongs to. */
  member?: { email: string; role: string } | null;
};

function useHash(): string {
  const [hash, setHash] = useState(location.hash.slice(1) || '/runs');
  useEffect(() => {
    const on = () => setHash(location.hash.slice(1) || '/runs');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

const NAV = [
  ['/runs', 'Runs'],
  ['/tokens', 'Tokens'],
  ['/webhooks', 'Webhooks'],
  ['/usage', 'Usage'],
] as const;

function Page({ hash, account }: { hash: string; account: Account }) {
  const run = /^\/runs\/([\w-]+)$/.exec(hash);
  if (run) return <RunPage runId={run[1]!} />;
  if (hash === '/tokens') return <TokensPage />;
  if (hash === '/webhooks') return <WebhooksPage />;
  if (hash === '/usage') return <UsagePage account={account} />;
  return <RunsPage />;
}

function ActivationNotice({ account }: { account: Account }) {
  const [note, setNote] = useState('');
  if (account.activated) return null;
  const resend = async () => {
    try {
      const r = await api('POST', '/v1/profiles/activation/resend');
      setNote(`A new activation mail went to ${r.sentTo} (${r.delivery}).`);
    } catch (e) {
      setNote((e as Error).message);
    }
  };
  return (
    <p class="notice" role="status">
      Not activated yet: workflow requests are limited to {account.usage.unverifiedLimit} (
      {account.usage.unverifiedUsed} used).{' '}
      <button type="button" onClick={asyncHandler(resend)}>
        Resend activation mail
      </button>{' '}
      <span>{note}</span>
    </p>
  );
}

function App() {
  const [account, setAccount] = useState<Account | null | undefined>(undefined);
  const hash = useHash();
  const load = async () => {
    try {
      const me = await api('GET', '/v1/session');
      setCsrf(me.session?.csrfToken ?? '');
      setAccount({ ...me.account, member: me.member });
    } catch {
      setAccount(null);
    }
  };
  useEffect(() => {
    void load();
    const out = () => setAccount(null);
    addEventListener('awp:signed-out', out);
    return () => removeEventListener('awp:signed-out', out);
  }, []);
  if (account === undefined) return <p>Loading…</p>;
  if (account === null) return <SignIn onSignedIn={asyncHandler(load)} />;
  const signOut = async () => {
    await api('DELETE', '/v1/session').catch(() => undefined);
    setAccount(null);
  };
  return (
    <>
      <header>
        <strong>awp</strong>
        <nav aria-label="Dashboard">
          {NAV.map(([path, label]) => (
            <a href={`#${path}`} aria-current={hash.startsWith(path) ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="who">
          {account.member?.email ?? account.email}
          {account.member ? ` (${account.member.role})` : ''} · {account.plan} ·{' '}
          {account.activated ? 'activated' : 'not activated'}
        </span>
        <button type="button" onClick={asyncHandler(signOut)}>
          Sign out
        </button>
      </header>
      <main>
        <ActivationNotice account={account} />
        <Page hash={hash} account={account} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
