import { useEffect, useState } from 'preact/hooks';

/** The stream's `ready` carries at most this many items (docs/api/inbox.md): a full one is "500+". */
const READY_MAX = 500;

/**
 * How many items wait in the account's inbox, for the navigation: from GET /v1/inbox/events (its `ready` lists the
 * open items, then each item added or removed moves the count). One stream for the whole shell, open while signed in;
 * EventSource reconnects by itself, and the new `ready` recounts. Null until the first count.
 */
export function useInboxCount(signedIn: boolean): string | null {
  const [count, setCount] = useState<string | null>(null);
  useEffect(() => {
    if (!signedIn) return;
    const ids = new Set<string>();
    let full = false;
    const show = () => setCount(full && ids.size >= READY_MAX ? `${READY_MAX}+` : String(ids.size));
    const source = new EventSource('/v1/inbox/events');
    source.addEventListener('ready', (m) => {
      const items = (JSON.parse(m.data).items ?? []) as Array<{ itemId: string }>;
      ids.clear();
      for (const i of items) ids.add(i.itemId);
      full = items.length >= READY_MAX;
      show();
    });
    source.addEventListener('item.added', (m) => {
      ids.add(JSON.parse(m.data).itemId);
      show();
    });
    source.addEventListener('item.removed', (m) => {
      ids.delete(JSON.parse(m.data).itemId);
      show();
    });
    return () => {
      source.close();
      setCount(null);
    };
  }, [signedIn]);
  return count;
}
