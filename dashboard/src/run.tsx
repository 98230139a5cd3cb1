import { useEffect, useRef, useState } from 'preact/hooks';
import { api, asyncHandler, when } from './api';
import { follow } from './live';
import { BackLink, Table } from './ui';
import { Waitpoint } from './waitpoint';

type RunEvent = { id: string; type: string; text: string };
/** The stream's event types (the spec's orchestrator stream); SSE names each frame by its type. */
const EVENT_TYPES = ['trace', 'conversation', 'domainStream', 'handoff', 'progress', 'final'];

/** Statuses of a run still moving: its event stream has more to say. */
const MOVING = ['queued', 'running'];

/**
 * One run: steps with timings, the live event stream (SSE), the waitpoint's actions and the proof card. Each event
 * reloads the run, so steps and the proof card appear as they happen; the event list scrolls inside a box of fixed
 * height so nothing below it moves. The run's stream is closed on its `final` event (the service ends it there, and
 * EventSource would reconnect to a rested run again and again); the account's stream of runs says when the run moves
 * again (an answer here, in the inbox or through the API), and the page then follows its events from where it was.
 */
export default function RunPage({ params: [runId] }: { params: string[] }) {
  const [run, setRun] = useState<any>(null);
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [error, setError] = useState('');
  const [opened, setOpened] = useState(0);
  const last = useRef(0);
  const following = useRef(false);
  const load = () =>
    api('GET', `/v1/runs/${runId}`)
      .then((r) => setRun(r.run))
      .catch((e) => setError(e.message));
  useEffect(() => {
    setEvents([]);
    last.current = 0;
    void load();
  }, [runId]);
  useEffect(() => {
    // EventSource sends Accept: text/event-stream and the cookie; it resumes with Last-Event-ID by itself.
    const source = new EventSource(`/v1/runs/${runId}/events${last.current ? `?after=${last.current}` : ''}`);
    following.current = true;
    const onEvent = (m: MessageEvent) => {
      last.current = Math.max(last.current, Number(m.lastEventId) || 0);
      const data = JSON.parse(m.data);
      const text = data.line ?? data.message ?? data.event ?? (m.type === 'final' ? 'run rested' : '');
      setEvents((list) => [...list, { id: m.lastEventId, type: m.type, text }]);
      void load();
      if (m.type === 'final') {
        source.close();
        following.current = false;
      }
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, onEvent);
    return () => {
      source.close();
      following.current = false;
    };
  }, [runId, opened]);
  useEffect(
    () =>
      follow('/v1/runs/events', ['run.changed'], (m) => {
        const d = JSON.parse(m.data);
        if (d.runId !== runId) return;
        void load();
        if (!following.current && MOVING.includes(d.run.status)) setOpened((n) => n + 1);
      }),
    [runId],
  );
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!run) return <p>Loading…</p>;
  return (
    <>
      <BackLink href="#/runs" label="Runs" />
      <h1>
        Run <code>{run.runId}</code>
      </h1>
      <p>
        Status:{' '}
        <strong class={`status s-${run.status}`} data-testid="run-status">
          {run.status}
        </strong>{' '}
        · route {run.route.join(' → ')} · created {when(run.createdAt)}
      </p>
      {run.hold && (
        <p class="hold" data-testid="run-hold">
          Number {run.hold.position} in line: {run.hold.reason}
        </p>
      )}
      {run.request && <p>Request: “{run.request}”</p>}
      {run.error && <p class="error">{run.error}</p>}
      {run.waitpoint && <Waitpoint run={run} onAnswered={asyncHandler(load)} />}
      <h2>Steps</h2>
      <Table
        caption="Steps of the run"
        rows={run.steps}
        cols={[
          ['#', (s: any) => `${s.segment}.${s.index}`],
          ['Domain', (s: any) => s.domain],
          ['Status', (s: any) => s.status],
          ['Attempts', (s: any) => s.attempts],
          ['Started', (s: any) => when(s.startedAt)],
          ['Duration', (s: any) => (s.durationMs === null ? '—' : `${s.durationMs} ms`)],
        ]}
      />
      <h2>Live events</h2>
      <ol class="events" aria-live="polite" data-testid="run-events" tabIndex={0} aria-label="Live events of the run">
        {events.map((e) => (
          <li>
            <code>{e.type}</code> {e.text}
          </li>
        ))}
      </ol>
      {run.proofCardId ? <ProofCard cardId={run.proofCardId} runId={run.runId} /> : <p>No proof card yet.</p>}
    </>
  );
}

function ProofCard({ cardId, runId }: { cardId: string; runId: string }) {
  const [card, setCard] = useState<any>(null);
  const [exported, setExported] = useState<any>(null);
  useEffect(
    () =>
      void api('GET', `/v1/audit/proofCards/${cardId}`)
        .then((r) => setCard(r.proofCard ?? r.card ?? r))
        .catch(() => undefined),
    [cardId],
  );
  const exportCard = async () => {
    const r = await api('POST', `/v1/audit/proofCards/${cardId}/export`, {});
    setExported(r);
    const url = URL.createObjectURL(new Blob([JSON.stringify(r, null, 2)], { type: 'application/json' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `${cardId}.json` });
    a.click();
    URL.revokeObjectURL(url);
  };
  // A pack seals the run as it rests now; the pack page verifies it in the browser.
  const sealPack = async () => {
    const r = await api('POST', '/v1/audit/proofPacks', { runId });
    location.hash = `#/proof-packs/${r.pack.packId}`;
  };
  return (
    <section class="card">
      <h2>
        Proof card <code>{cardId}</code>
      </h2>
      {card && (
        <pre tabIndex={0} aria-label="Proof card">
          {JSON.stringify(card, null, 2).slice(0, 4000)}
        </pre>
      )}
      <button type="button" onClick={asyncHandler(exportCard)}>
        Export
      </button>{' '}
      {exported && <span>Exported.</span>}{' '}
      <button type="button" onClick={asyncHandler(sealPack)}>
        Seal a proof pack
      </button>
    </section>
  );
}
