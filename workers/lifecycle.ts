import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../shared/config.js';
import { createDeps, type Deps } from '../shared/deps.js';
import { createLogger, type Logger } from '../shared/log.js';

export interface Stoppable {
  name: string;
  stop(): Promise<void>;
}

/**
 * Stops components in reverse start order on SIGTERM/SIGINT, once, with a
 * deadline so a stuck component cannot keep the process alive forever.
 */
export function onShutdown(log: Logger, parts: () => Stoppable[], deadlineMs = 20_000): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    for (const part of [...parts()].reverse()) {
      try {
        await part.stop();
        log.info({ part: part.name }, 'stopped');
      } catch (err) {
        log.error({ part: part.name, err }, 'stop failed');
      }
    }
    clearTimeout(timer);
    process.exitCode = 0;
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/** True when this module is the process's entry point (`tsx workers/domains.ts`). */
export function isMain(moduleUrl: string): boolean {
  return Boolean(process.argv[1]) && moduleUrl === pathToFileURL(path.resolve(process.argv[1]!)).href;
}

/**
 * Entry-point boilerplate for a Procfile process: config, deps, start the
 * parts, and stop them (then the deps) on SIGTERM.
 */
export function runProcess(name: string, start: (deps: Deps) => Promise<Stoppable[]>): void {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, { process: name });
  const deps = createDeps(config, log);
  let parts: Stoppable[] = [{ name: 'deps', stop: () => deps.close() }];
  onShutdown(log, () => parts);
  start(deps).then(
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
