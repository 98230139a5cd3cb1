import type { Client } from './client.js';
import { MIX, type Ctx } from './flows.js';
import type { SoakFixtures } from './setup.js';
import type { Tracker } from './tracker.js';

/**
 * The mixed load: `rate` actions a second for `durationS`, each picked by
 * weight from the mix (sync, async and streamed runs of every domain,
 * answers to waiting runs, cancels, signals, reads), at most `maxInFlight`
 * at once (one more is skipped and counted, not queued: the driver must not
 * build a backlog of its own). Resolves when every started action ended.
 */
export async function driveLoad(
  api: Client,
  t: Tracker,
  fx: SoakFixtures,
  opts: { durationS: number; rate: number; maxInFlight: number; log: (msg: string) => void },
): Promise<{ started: number; skipped: number }> {
  const total = MIX.reduce((s, [, w]) => s + w, 0);
  const pick = (r: number) => {
    let x = r * total;
    for (const entry of MIX) if ((x -= entry[1]) < 0) return entry;
    return MIX[0]!;
  };
  let n = 0;
  let skipped = 0;
  let inFlight = 0;
  const running = new Set<Promise<void>>();
  const end = Date.now() + opts.durationS * 1000;
  const everyMs = 1000 / opts.rate;
  let nextLog = Date.now() + 10_000;
  for (let due = Date.now(); due < end; due += everyMs) {
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight >= opts.maxInFlight) {
      skipped++;
      continue;
    }
    const [name, , fn] = pick(Math.random());
    const ctx: Ctx = { api, t, fx, n: n++ };
    inFlight++;
    const p = fn(ctx)
      .catch((err: Error) => t.problem(`${name} threw: ${err.message}`))
      .finally(() => {
        inFlight--;
        running.delete(p);
      });
    running.add(p);
    if (Date.now() > nextLog) {
      nextLog += 10_000;
      opts.log(`load: ${n} actions, ${inFlight} in flight, ${skipped} skipped, ${t.accepted.size} runs accepted`);
    }
  }
  await Promise.all([...running]);
  return { started: n, skipped };
}
