import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Account } from './main';

type PageProps = { params: string[]; account: Account };
type Loader = () => Promise<{ default: ComponentType<PageProps> }>;

/**
 * The pages behind the runs list, each its own chunk (dynamic import): the first load carries the shell and the runs
 * list only. A route is a pattern of the hash and the page that shows it; captured groups are its `params`.
 */
export const ROUTES: Array<[RegExp, Loader]> = [
  [/^\/runs\/([\w-]+)$/, () => import('./run')],
  [/^\/inbox$/, () => import('./inbox')],
  [/^\/inbox\/([\w-]+)$/, () => import('./inbox-item')],
  [/^\/settings\/notifications$/, () => import('./notifications')],
  [/^\/cases$/, () => import('./cases')],
  [/^\/cases\/([\w-]+)$/, () => import('./case')],
  [/^\/missions$/, () => import('./missions')],
  [/^\/missions\/([\w-]+)$/, () => import('./mission')],
  [/^\/pay$/, () => import('./pay')],
  [/^\/pay\/mandates\/([\w-]+)$/, () => import('./mandate')],
  [/^\/pay\/receipts\/([\w-]+)$/, () => import('./receipt')],
  [/^\/proof-packs$/, () => import('./proof-packs')],
  [/^\/proof-packs\/([\w-]+)$/, () => import('./proof-pack')],
  [/^\/schedules$/, () => import('./schedules')],
  [/^\/schedules\/([\w-]+)$/, () => import('./schedule')],
  [/^\/signal-rules$/, () => import('./signal-rules')],
  [/^\/members$/, () => import('./members')],
  [/^\/credentials$/, () => import('./credentials')],
  [/^\/tokens$/, () => import('./tokens')],
  [/^\/webhooks$/, () => import('./webhooks')],
  [/^\/usage$/, () => import('./usage')],
];

export const NAV = [
  ['/runs', 'Runs'],
  ['/inbox', 'Inbox'],
  ['/cases', 'Cases'],
  ['/missions', 'Missions'],
  ['/pay', 'Pay'],
  ['/proof-packs', 'Proof packs'],
  ['/schedules', 'Schedules'],
  ['/signal-rules', 'Signal rules'],
  ['/members', 'Members'],
  ['/credentials', 'Credentials'],
  ['/tokens', 'Tokens'],
  ['/webhooks', 'Webhooks'],
  ['/usage', 'Usage'],
] as const;

/** Loads the page's chunk, then shows it; a failed load (a deploy replaced the chunk) says to reload. */
export function LazyPage({ loader, params, account }: { loader: Loader } & PageProps) {
  const [Page, setPage] = useState<{ C: ComponentType<PageProps> } | null | 'failed'>(null);
  useEffect(() => {
    let live = true;
    setPage(null);
    loader().then(
      (m) => live && setPage({ C: m.default }),
      () => live && setPage('failed'),
    );
    return () => {
      live = false;
    };
  }, [loader]);
  if (Page === 'failed')
    return (
      <p role="alert" class="error">
        This page could not be loaded: reload the dashboard.
      </p>
    );
  if (!Page) return <p>Loading…</p>;
  return <Page.C params={params} account={account} />;
}
