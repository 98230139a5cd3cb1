import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * What a page shows, loaded once and again whenever it may have changed: when an SSE stream the page names sends an
 * event, when the member comes back to the tab, and after the page's own actions (`reload`). Nothing is polled on a
 * timer. Reloads that overlap are coalesced into one.
 */
export function useResource<T>(
  load: () => Promise<T>,
  key: unknown[],
  stream?: { url: string; types: string[]; until?: string } | null,
) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState('');
  const loader = useRef(load);
  loader.current = load;
  const busy = useRef<Promise<void> | null>(null);
  const again = useRef(false);
  const reload = (): Promise<void> => {
    if (busy.current) {
      again.current = true;
      return busy.current;
    }
    busy.current = (async () => {
      do {
        again.current = false;
        try {
          setData(await loader.current());
          setError('');
        } catch (e) {
          setError((e as Error).message);
        }
      } while (again.current);
      busy.current = null;
    })();
    return busy.current;
  };
  useEffect(() => {
    setData(undefined);
    void reload();
    const onVisible = () => {
      if (document.visibilityState === 'visible') void reload();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, key);
  const streamUrl = stream?.url ?? null;
  useEffect(() => {
    if (!stream || !streamUrl) return;
    // Every live list opens with `ready`, its baseline: a change between the first load and that baseline is in
    // neither, so the list loads again once the stream is following (and again after each reconnect).
    return follow(streamUrl, ['ready', ...stream.types], () => void reload(), stream.until);
  }, [streamUrl]);
  return { data, error, setError, reload };
}

/** A list's stream: the account's events of these kinds (`case.*`), each a reason to reload. */
export const eventsOf = (...types: string[]) => ({
  url: `/v1/events/stream?types=${encodeURIComponent(types.join(','))}`,
  types: ['event'],
});

/**
 * Follows an SSE stream (EventSource sends the cookie and resumes with Last-Event-ID by itself), calling `onEvent`
 * for each frame of the named types; a frame of type `until` ends it (a run that rested closes its stream, and
 * EventSource would otherwise reconnect to it). Returns the function that stops it.
 */
export function follow(url: string, types: string[], onEvent: (m: MessageEvent) => void, until?: string): () => void {
  const source = new EventSource(url);
  const on = (m: MessageEvent) => {
    onEvent(m);
    if (until && m.type === until) source.close();
  };
  for (const t of types) source.addEventListener(t, on);
  return () => source.close();
}

/**
 * A page about something a run waits on (a mission, a receipt) reloads whenever that run's stream says something.
 * The stream is left open past `final`: an answered waitpoint resumes the run, and EventSource reconnects to follow.
 */
export function useRunStream(runId: string | null | undefined, reload: () => Promise<void>) {
  useEffect(() => {
    if (!runId) return;
    return follow(`/v1/runs/${runId}/events`, ['handoff', 'progress', 'final'], () => void reload());
  }, [runId]);
}
