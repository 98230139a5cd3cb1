import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, asyncHandler, setCsrf, ZONE } from './api';
import { SignIn } from './sign-in';
import { RunsPage } from './runs';
import { LazyPage, NAV, ROUTES } from './routes';
import { useInboxCount } from './inbox-count';
import './style.css';

export type Account = {
  accountId: string;
  email: string;
  name: string;
  plan: string;
  activated: boolean;
  usage: any;
  /** The signed-in member (its own email and role), beside the account it belongs to. */
  member?: { memberId: string; email: string; role: string } | null;
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

function Page({ hash, account }: { hash: string; account: Account }) {
  for (const [pattern, loader] of ROUTES) {
    const m = pattern.exec(hash);
    // Keyed by the route: another route is another page, never the last one's component with the new params.
    if (m) return <LazyPage key={pattern.source} loader={loader} params={m.slice(1)} account={account} />;
  }
  return <RunsPage />;
}

/** After a move to another page, focus goes to the page's content, so a keyboard or screen reader starts there. */
function useFocusOnNavigate(hash: string) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus();
  }, [hash]);
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

/** The skip link moves focus itself: its href would otherwise change the hash, which is the router's. */
function skipToMain(e: Event) {
  e.preventDefault();
  document.getElementById('main')?.focus();
}

function App() {
  const [account, setAccount] = useState<Account | null | undefined>(undefined);
  const hash = useHash();
  useFocusOnNavigate(hash);
  const inboxCount = useInboxCount(Boolean(account));
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
      <a class="skip" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header>
        <strong>awp</strong>
        <nav aria-label="Dashboard">
          {NAV.map(([path, label]) => (
            <a href={`#${path}`} aria-current={hash.startsWith(path) ? 'page' : undefined}>
              {label}
              {path === '/inbox' && (
                <span class="count" data-testid="inbox-nav-count">
                  {inboxCount === null ? '' : ` ${inboxCount}`}
                  <span class="sr">{inboxCount === null ? '' : ' waiting'}</span>
                </span>
              )}
            </a>
          ))}
        </nav>
        <span class="who">
          {account.member?.email ?? account.email}
          {account.member ? ` (${account.member.role})` : ''} · {account.plan} ·{' '}
          {account.activated ? 'activated' : 'not activated'} · times in {ZONE}
        </span>
        <button type="button" onClick={asyncHandler(signOut)}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <ActivationNotice account={account} />
        <Page hash={hash} account={account} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
