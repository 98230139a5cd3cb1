import type { Deps } from '../../shared/deps.js';
import { emitRunEvents } from './run-events.js';

/**
 * How long a step's stream messages wait to be written together; a step that ends sooner writes them with its
 * completion.
 */
export const STREAM_HOLD_MS = 200;

type Held = { type: string; data: Record<string, unknown> };

/**
 * A running step's stream messages (`domainStream`). Held for up to
 * STREAM_HOLD_MS and written in one statement; a step that completes sooner
 * hands them to its completion, which writes them in its own statement, so
 * a fast step's messages cost no write of their own. Writes keep their order;
 * a batch that could not be written is held again for the next write.
 */
export class StepStream {
  private held: Held[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'bus'>,
    private readonly runId: string,
    private readonly accountId: string,
  ) {}

  push(type: string, data: Record<string, unknown>): void {
    this.held.push({ type, data });
    this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), STREAM_HOLD_MS);
  }

  /** Writes what is held now, after any write in flight. */
  flush(): Promise<void> {
    this.stop();
    const batch = this.held.splice(0);
    if (batch.length === 0) return this.writing;
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        try {
          await emitRunEvents(this.deps, this.runId, this.accountId, batch);
        } catch (err) {
          this.held.unshift(...batch);
          throw err;
        }
      });
    return this.writing;
  }

  /** What is still held once writes in flight are over, for the caller to write with its own events. */
  async take(): Promise<Held[]> {
    this.stop();
    await this.writing.catch(() => undefined);
    return this.held.splice(0);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
