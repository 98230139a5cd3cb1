import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from './config.js';
import { createDeps, type Deps } from './deps.js';
import { createLogger, type Logger } from './log.js';
import { isTransientInfraError } from './transient.js';
import { startTelemetry } from './telemetry/start.js';

export interface Stoppable {
  name: string;
  /**
   * Stops the part, letting in-flight work finish. `graceOver` aborts when the
   * shutdown grace has passed: stop waiting and force-close what is left.
   */
  stop(graceOver?: AbortSignal): Promise<void>;
}

/** After the grace, force-closed parts get this long to let go before the process exits regardless. */
export const FORCE_CLOSE_MS = 2_000;

/**
 * Stops components in reverse start order on SIGTERM/SIGINT, once. In-flight
 * work gets `graceMs`; then the parts are told to force-close; and if
 * something still holds on `FORCE_CLOSE_MS` later, the process exits with 1
 * rather than waiting for an orchestrator's SIGKILL. The deadline timer stays
 * armed (unref'd) after the parts stop, so a handle left open exits 1 too
 * instead of keeping the process alive.
 *
 * Unhandled rejections: one that is an outage of Postgres or Redis (a driver's stray rejection, such as pg's
 * ROLLBACK on a connection Postgres terminated, whose transaction's own error its caller already handled; or,
 * once stopping, a Redis command queued on a client `deps.close()` ended) is logged and the process goes on: the
 * work it belonged to is retried by its own path. Any other is a defect of unknown reach: the process exits 1
 * (at once, or after stopping when it comes during shutdown), as Node would.
 */
export function onShutdown(log: Logger, parts: () => Stoppable[], graceMs: number): void {
  let stopping = false;
  let failed = false;
  process.on('unhandledRejection', (err) => {
    if (isTransientInfraError(err))
      return log.warn({ err: String(err) }, stopping ? 'a command was cut off by shutdown' : 'a stray outage error');
    if (!stopping) {
      log.fatal({ err }, 'unhandled rejection');
      process.exit(1);
    }
    failed = true;
    process.exitCode = 1;
    log.error({ err }, 'unhandled rejection while shutting down');
  });
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, graceMs }, 'shutting down');
    const grace = new AbortController();
    setTimeout(() => {
      log.warn('shutdown grace over; force-closing what is left');
      grace.abort();
    }, graceMs).unref();
    setTimeout(() => {
      log.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, graceMs + FORCE_CLOSE_MS).unref();
    for (const part of [...parts()].reverse()) {
      try {
        await part.stop(grace.signal);
        log.info({ part: part.name }, 'stopped');
      } catch (err) {
        log.error({ part: part.name, err }, 'stop failed');
      }
    }
    if (!failed) process.exitCode = 0;
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/** Resolves when `signal` aborts (at once if it has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** True when this module is the process's entry point (`tsx workers/domains.ts`). */
export function isMain(moduleUrl: string): boolean {
  return Boolean(process.argv[1]) && moduleUrl === pathToFileURL(path.resolve(process.argv[1]!)).href;
}

/**
 * Entry-point boilerplate for a Procfile process: config, deps, traces (when OTEL_EXPORTER_OTLP_ENDPOINT is set),
 * start the parts, and stop them (then the deps, then the traces, flushed last) on SIGTERM.
 */
export function runProcess(name: string, start: (deps: Deps) => Promise<Stoppable[]>): void {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, { process: name });
  const deps = createDeps(config, log);
  let parts: Stoppable[] = [{ name: 'deps', stop: () => deps.close() }];
  onShutdown(log, () => parts, config.SHUTDOWN_GRACE_MS);
  startTelemetry(config, name, log)
    .then((telemetry) => {
      if (telemetry) parts = [telemetry, ...parts];
      return start(deps);
    })
    .then(
      (started) => {
        parts = [...parts, ...started];
        log.info({ process: name }, 'started');
      },
      (err) => {
        log.fatal({ err }, 'failed to start');
        process.exit(1);
      },
    );
}
