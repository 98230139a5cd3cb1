import type { RunEvent, RunResult } from '../sdk/src/index.js';

/** What the progress display prints for an event; null for events it leaves out (conversation lines). */
export function describeEvent(ev: RunEvent): string | null {
  const f = ev as RunEvent & Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (ev.type) {
    case 'trace': {
      const what = text(f.event);
      if (what === 'run.created') {
        const hold = f.hold as { position?: number } | undefined;
        return hold?.position ? `queued: held, position ${hold.position}` : 'queued';
      }
      if (what === 'waitpoint.created') return `waiting: ${text(f.kind) || text(f.status) || 'for an answer'}`;
      if (what === 'run.failed') return `failed: ${text(f.error) || text(f.reason) || 'see awp runs show'}`;
      return what || null;
    }
    case 'handoff':
      return f.phase === 'start'
        ? `step ${text(f.name)} started`
        : `step ${text(f.name)} finished: ${text(f.status) || 'completed'}`;
    case 'domainStream':
      return `  ${text(f.domain)}: ${text(f.message)}`;
    case 'progress':
      return `  still ${text(f.status) || 'running'} after ${String(f.elapsedSec ?? '?')} s${
        f.message ? `: ${text(f.message)}` : ''
      }`;
    case 'final': {
      const result = f.result as RunResult | undefined;
      return result ? finalLine(result) : 'final';
    }
    default:
      return null;
  }
}

/** The last line of a run: its status, its proof card, its error. */
export function finalLine(result: Pick<RunResult, 'status' | 'proofCard' | 'error'>): string {
  const card = result.proofCard ? `, proof card ${result.proofCard.cardId}` : '';
  const error = result.error ? `: ${result.error}` : '';
  return `status ${result.status}${card}${error}`;
}

/** Statuses that end a run well or wait for an answer; the rest (failed, canceled, expired, blocked) exit 1. */
export const GOOD_STATUSES = new Set([
  'ready',
  'delivered',
  'dryRun',
  'NEEDS_INPUT',
  'awaitingProxy',
  'awaitingApproval',
  'awaitingAction',
  'awaitingCi',
]);
