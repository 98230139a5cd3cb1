import assert from 'node:assert/strict';
import { harness } from './harness.js';

export interface SseFrame {
  event: string;
  data: Record<string, any>;
}

/** An open SSE stream of a GET route: its frames so far, and a wait for one that matches. */
export async function openSse(path: string, token: string) {
  const ac = new AbortController();
  const res = await fetch(`${harness.url}${path}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: ac.signal,
  });
  assert.equal(res.status, 200, await (res.status === 200 ? Promise.resolve('') : res.text()));
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const stream = {
    text: '',
    frames: (): SseFrame[] =>
      stream.text
        .split('\n\n')
        .filter((f) => /^event: /m.test(f))
        .map((f) => ({
          event: /^event: (.*)$/m.exec(f)![1]!,
          data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as Record<string, any>,
        })),
    /** Reads until a frame matches; the test's own timeout bounds the wait. */
    async until(match: (f: SseFrame) => boolean) {
      for (;;) {
        const found = stream.frames().find(match);
        if (found) return found;
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended: ${stream.text}`);
        stream.text += decoder.decode(value, { stream: true });
      }
    },
    close: () => ac.abort(),
  };
  return stream;
}
