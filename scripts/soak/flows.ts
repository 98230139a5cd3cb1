import { ndjson, sse, type Answer, type Client } from './client.js';
import { BENCH_HASHES, bodyFor, chainDigest, CHOICE } from './bodies.js';
import { streamProblem } from './logic.js';
import type { SoakFixtures } from './setup.js';
import type { Tracker } from './tracker.js';

/** What every action gets: the client, the tracker, the fixtures and a running number. */
export interface Ctx {
  api: Client;
  t: Tracker;
  fx: SoakFixtures;
  n: number;
}

const RUN = '/v1/orchestrator/run';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const domainOf = (c: Ctx) => c.fx.domains[c.n % c.fx.domains.length]!;
const label = (a: Answer) =>
  a.status === null ? 'no answer' : `${a.status}${a.body?.status ? ` ${a.body.status}` : ''}`;

/** A benchmark run's digest proves its three steps ran, in order, on its own run id. */
function checkDigest(c: Ctx, answer: Answer): void {
  const digest = answer.body?.results?.benchmark?.digest;
  if (answer.body?.status !== 'ready' || answer.body?.route?.[0] !== 'benchmark') return;
  c.t.digests.checked++;
  const steps = answer.body.route.length as number;
  if (digest !== chainDigest(String(answer.body.runId), BENCH_HASHES, steps))
    c.t.problem(`benchmark run ${answer.body.runId}: digest ${String(digest).slice(0, 16)}… is not its steps'`);
}

/** A sync run of the next domain: answered 200 when it rested within the wait, else 202 while it goes on. */
export async function syncRun(c: Ctx): Promise<void> {
  const domain = domainOf(c);
  const a = await c.api.call('run sync', 'POST', RUN, { body: bodyFor(domain, c.n, c.fx) });
  c.t.count(`sync ${domain}: ${label(a)}`);
  c.t.accept(a.body);
  checkDigest(c, a);
}

/** An async submission (`Prefer: respond-async`): 202 at once. */
export async function asyncRun(c: Ctx): Promise<void> {
  const domain = domainOf(c);
  const a = await c.api.call('run async', 'POST', RUN, {
    body: bodyFor(domain, c.n, c.fx),
    headers: { prefer: 'respond-async' },
  });
  c.t.count(`async ${domain}: ${label(a)}`);
  c.t.accept(a.body);
}

function followed(c: Ctx, what: string, a: Answer, events: Array<{ id: number; type: string }>): void {
  if (a.status !== 200) {
    c.t.streams.unanswered++;
    return c.t.count(`${what}: ${label(a)}`);
  }
  c.t.streams.followed++;
  const problem = streamProblem(events);
  // A web process killed mid-stream cuts it: that is the kill, not a gap in what the service sent.
  if (problem && !events.some((e) => e.type === 'final')) c.t.streams.cut++;
  else if (problem) c.t.problem(`${what}: ${problem}`);
  c.t.count(`${what}: ${problem ? 'cut or broken' : 'complete'}`);
}

/** A run answered as an NDJSON stream (`stream: true`): its ids run on by one and it ends with `final`. */
export async function streamedRun(c: Ctx): Promise<void> {
  const body = { ...bodyFor(c.n % 2 ? 'benchmark' : 'hunt', c.n, c.fx), stream: true };
  const a = await c.api.call('run stream', 'POST', RUN, { body, timeoutMs: 90_000 });
  const events = ndjson(a.text);
  const runId = events.find((e) => e.runId)?.runId;
  if (runId) c.t.accepted.add(runId);
  followed(c, 'stream ndjson', a, events);
}

/** An async run followed over SSE (`GET /v1/runs/{id}/events`, `Accept: text/event-stream`). */
export async function sseFollow(c: Ctx): Promise<void> {
  const a = await c.api.call('run async', 'POST', RUN, {
    body: bodyFor('benchmark', c.n, c.fx),
    headers: { prefer: 'respond-async' },
  });
  c.t.accept(a.body);
  if (!a.body?.runId) return c.t.count(`sse submit: ${label(a)}`);
  const s = await c.api.call('events sse', 'GET', `/v1/runs/${a.body.runId}/events`, {
    headers: { accept: 'text/event-stream' },
    timeoutMs: 90_000,
  });
  const ids = s.text.split('\n').filter((l) => l.startsWith('id:'));
  const events = sse(s.text).map((e, i) => ({ ...e, id: Number(ids[i]?.slice(3) ?? e.id) }));
  followed(c, 'stream sse', s, events);
}

/** A hunt that stops at a choice; the answer comes later, from `answerWaiting`. */
export async function choiceRun(c: Ctx): Promise<void> {
  const a = await c.api.call('run sync', 'POST', RUN, { body: { request: CHOICE, domainRoute: ['hunt'] } });
  c.t.count(`choice hunt: ${label(a)}`);
  c.t.accept(a.body);
}

/** Polls a run until it rests (or 30 s pass); a run that waits again goes back to the waiting line. */
async function untilRest(c: Ctx, runId: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await sleep(500);
    const r = await c.api.call('read run', 'GET', `/v1/runs/${runId}`);
    const run = r.body?.run;
    if (!run || ['queued', 'running'].includes(run.status) || !run.result) continue;
    c.t.accept({ runId, status: run.status, results: run.result?.results ?? run.results });
    return;
  }
}

/** Answers the oldest waiting run: a choice (contact or buy), a proxy mission's outcome, a payment declined. */
export async function answerWaiting(c: Ctx): Promise<void> {
  const w = c.t.takeWaiting();
  if (!w) return choiceRun(c);
  let a: Answer;
  if (w.status === 'NEEDS_INPUT') {
    const itemId = w.results?.hunt?.choices?.[0]?.itemId;
    const action = c.n % 2 ? 'contact' : 'buy';
    a = await c.api.call('resume', 'POST', `/v1/runs/${w.runId}/resume`, { body: { itemId, action } });
  } else if (w.status === 'awaitingProxy') {
    // The open waitpoint names the mission and the proof it asks for (a call summary, a message transcript…).
    const run = (await c.api.call('read run', 'GET', `/v1/runs/${w.runId}`)).body?.run;
    const { proxyId, proofReq } = run?.waitpoint?.payload ?? {};
    if (!proxyId) return c.t.count(`resume awaitingProxy: no open mission (${run?.status ?? 'unread'})`);
    const proof = Object.fromEntries(((proofReq ?? []) as string[]).map((k) => [k, 'soak: they can come tomorrow']));
    a = await c.api.call('resume', 'POST', `/v1/proxy/missions/${proxyId}/outcome`, {
      body: { status: 'confirmedSuccess', proof },
    });
  } else {
    a = await c.api.call('resume', 'POST', `/v1/runs/${w.runId}/resume`, { body: { action: 'decline' } });
  }
  c.t.count(`resume ${w.status}: ${label(a)}`);
  if (a.status !== null && a.status < 300) await untilRest(c, w.runId);
}

/** Cancels a waiting run, or a run just submitted (still held, queued or running, or already done: 409). */
export async function cancelRun(c: Ctx): Promise<void> {
  let runId = c.n % 2 ? c.t.takeWaiting()?.runId : undefined;
  if (!runId) {
    const a = await c.api.call('run async', 'POST', RUN, {
      body: bodyFor('benchmark', c.n, c.fx),
      headers: { prefer: 'respond-async' },
    });
    c.t.accept(a.body);
    runId = a.body?.runId;
  }
  if (!runId) return c.t.count('cancel: no run to cancel');
  const a = await c.api.call('cancel', 'POST', `/v1/runs/${runId}/cancel`, { body: {} });
  if (a.status === 200) c.t.canceled.add(runId);
  c.t.count(`cancel: ${label(a)}`);
}

/** A signal that the soak's rule matches; one in four repeats an earlier source id, which must match nothing new. */
export async function sendSignal(c: Ctx): Promise<void> {
  const repeat = c.n % 4 === 0 && c.t.signalIds.length > 0;
  const sourceId = repeat ? c.t.signalIds[c.n % c.t.signalIds.length]! : `soak-${c.n}-${Date.now()}`;
  const a = await c.api.call('signal', 'POST', '/v1/signals', {
    body: { type: c.fx.signalType, subject: 'soak', source: 'soak', sourceId },
  });
  c.t.count(`signal ${repeat ? 'repeat' : 'new'}: ${label(a)}`);
  if (a.status === 201) c.t.signalIds.push(sourceId);
  if (repeat && a.status === 201) c.t.problem(`signal ${sourceId} sent twice was accepted as new (201)`);
  if (repeat && a.status === 200 && a.body?.duplicate !== true)
    c.t.problem(`signal ${sourceId} sent twice: 200 without duplicate: true`);
  for (const m of a.status === 201 ? (a.body?.matches ?? []) : []) if (m.runId) c.t.accepted.add(m.runId);
}

/** Reads: the run list, and one run the load started. */
export async function read(c: Ctx): Promise<void> {
  const ids = [...c.t.accepted];
  const a =
    c.n % 2 && ids.length
      ? await c.api.call('read run', 'GET', `/v1/runs/${ids[c.n % ids.length]}`)
      : await c.api.call('read list', 'GET', '/v1/runs?limit=5');
  c.t.count(`read: ${label(a)}`);
}

/** The actions and their weights in the mix. */
export const MIX: Array<[name: string, weight: number, fn: (c: Ctx) => Promise<void>]> = [
  ['sync run', 30, syncRun],
  ['async run', 14, asyncRun],
  ['stream ndjson', 7, streamedRun],
  ['stream sse', 6, sseFollow],
  ['choice', 7, choiceRun],
  ['resume', 10, answerWaiting],
  ['cancel', 6, cancelRun],
  ['signal', 6, sendSignal],
  ['read', 14, read],
];
